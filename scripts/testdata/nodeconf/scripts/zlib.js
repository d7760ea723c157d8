const zlib = require('zlib');
const input = 'hello hello hello hello zlib '.repeat(20);
for (const [c, d] of [['gzipSync', 'gunzipSync'], ['deflateSync', 'inflateSync'], ['deflateRawSync', 'inflateRawSync'], ['gzipSync', 'unzipSync'], ['deflateSync', 'unzipSync']]) {
  const packed = zlib[c](input);
  console.log(c, d, packed.length < input.length, zlib[d](packed).toString() === input);
}
// Compressed by Node's zlib: "skillrun" deflated.
console.log(zlib.inflateSync(Buffer.from('eJwrzs7MySkqzQMAD30DdQ==', 'base64')).toString());
try { zlib.gunzipSync(Buffer.from('not gzip')); } catch (e) { console.log(e.code); }
zlib.gzip('async', (err, buf) => {
  zlib.gunzip(buf, (err2, out) => console.log('async', err, err2, out.toString()));
});
