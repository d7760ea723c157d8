const { Readable, Writable, Transform, pipeline } = require('stream');
const chunks = [];
const sink = new Writable({ write(chunk, enc, cb) { chunks.push(String(chunk)); cb(); } });
const upper = new Transform({ transform(chunk, enc, cb) { cb(null, String(chunk).toUpperCase()); } });
pipeline(Readable.from(['a', 'b', 'c']), upper, sink, (err) => {
  console.log('pipeline', err, chunks.join(''));
});
const r = Readable.from(['x', 'y']);
const got = [];
r.on('data', (d) => got.push(d));
r.on('end', () => console.log('end', got.join('')));
