import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
let n = 0;
for await (const line of rl) {
  n++;
  console.log(n, line);
}
console.log('done', n);
