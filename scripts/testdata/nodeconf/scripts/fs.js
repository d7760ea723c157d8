const fs = require('fs');
const fsp = require('fs/promises');
fs.mkdirSync('out/deep/er', { recursive: true });
fs.writeFileSync('out/a.txt', 'alpha\n');
fs.appendFileSync('out/a.txt', 'beta\n');
fs.writeFileSync('out/b.bin', Buffer.from([0, 1, 2, 255]));
const raw = fs.readFileSync('out/a.txt');
console.log(Buffer.isBuffer(raw), raw.length, fs.readFileSync('out/a.txt', 'utf8').split('\n').length);
console.log(fs.readFileSync('out/b.bin').toString('hex'), fs.readFileSync('out/a.txt', { encoding: 'utf8' }).trim());
console.log(fs.readdirSync('out').join(','), fs.readdirSync('out', { withFileTypes: true }).map((d) => d.name + (d.isDirectory() ? '/' : '')).join(','));
const st = fs.statSync('out/a.txt');
console.log(st.isFile(), st.isDirectory(), st.size, st.mtime instanceof Date);
console.log(fs.existsSync('out/a.txt'), fs.existsSync('nope'));
fs.renameSync('out/a.txt', 'out/c.txt');
fs.copyFileSync('out/c.txt', 'out/d.txt');
fs.unlinkSync('out/c.txt');
try { fs.readFileSync('missing.txt'); } catch (e) { console.log(e.code, e.message, e.syscall); }
try { fs.mkdirSync('out'); } catch (e) { console.log(e.code); }
console.log(fs.statSync('nope', { throwIfNoEntry: false }));
fs.readFile('out/d.txt', 'utf8', (err, data) => {
  console.log('callback', err, JSON.stringify(data));
  fsp.readFile('out/d.txt', 'utf8').then((d) => {
    console.log('promise', d.length);
    return fsp.readFile('missing');
  }).catch((e) => {
    console.log('rejected', e.code);
    fs.rmSync('out', { recursive: true, force: true });
    console.log('removed', fs.existsSync('out'));
  });
});
