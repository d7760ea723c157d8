import { fileURLToPath, pathToFileURL, URL as U } from 'node:url';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { readFileSync } from 'node:fs';

const here = fileURLToPath(import.meta.url);
console.log(path.basename(here), path.extname(here), readFileSync(path.join(path.dirname(here), 'url.mjs'), 'utf8').includes('fileURLToPath'));
console.log(fileURLToPath('file:///tmp/a%20b/c.txt'));
console.log(pathToFileURL('/tmp/x y/z#.txt').href);
const u = new URL('https://user:pw@example.com:8080/p/a/t/h?query=string&a=1&a=2#hash');
console.log(u.protocol, u.username, u.host, u.hostname, u.port, u.pathname, u.search, u.hash);
console.log(u.searchParams.get('query'), u.searchParams.getAll('a').join(','));
u.searchParams.append('b', 'x y');
console.log(u.href);
const p = new URLSearchParams({ x: '1', y: 'two words' });
console.log(p.toString(), [...p.keys()].join('|'));
console.log(new U('../up', 'https://e.com/a/b/c').href);
console.log(createHash('md5').update('x').digest('hex'));
try { fileURLToPath('https://e.com/x'); } catch (e) { console.log(e.code); }
