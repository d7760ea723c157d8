console.log(process.argv.slice(2).join(' '), process.argv.length);
console.log(typeof process.env, typeof process.cwd(), typeof process.hrtime.bigint(), process.hrtime().length);
process.on('exit', (code) => console.log('exit event', code, process.exitCode));
process.nextTick(() => console.log('tick', 1));
setImmediate(() => console.log('immediate'));
process.stdout.write('written\n');
process.exitCode = 3;
