const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
const lines = [];
rl.on('line', (l) => lines.push(l.toUpperCase()));
rl.on('close', () => console.log(lines.length, lines.join('|')));
