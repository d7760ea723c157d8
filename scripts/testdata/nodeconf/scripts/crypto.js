const crypto = require('node:crypto');
for (const alg of ['md5', 'sha1', 'sha256', 'sha512']) {
  console.log(alg, crypto.createHash(alg).update('hello ').update('world').digest('hex'));
}
console.log(crypto.createHash('SHA256').update(Buffer.from([1, 2, 3])).digest('base64'));
console.log(crypto.createHash('sha256').update('ünïcode').digest('base64url'));
console.log(crypto.createHash('sha1').update('6869', 'hex').digest().length);
console.log(crypto.createHmac('sha256', 'secret').update('message').digest('hex'));
console.log(crypto.createHmac('sha1', Buffer.from('k')).update('m').digest('base64'));
console.log(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()));
console.log(crypto.randomBytes(16).length, Buffer.isBuffer(crypto.randomBytes(4)));
const n = crypto.randomInt(10, 20);
console.log(n >= 10 && n < 20);
console.log(crypto.timingSafeEqual(Buffer.from('abc'), Buffer.from('abc')));
console.log(crypto.getHashes().includes('sha256'));
console.log(crypto.pbkdf2Sync('pw', 'salt', 1000, 16, 'sha256').toString('hex'));
const h = crypto.createHash('sha256').update('a');
const h2 = h.copy();
h2.update('b');
console.log(h.digest('hex').slice(0, 16), h2.digest('hex').slice(0, 16));
try { crypto.createHash('nope'); } catch (e) { console.log('error:', e.message); }
const u8 = new Uint8Array(8);
crypto.getRandomValues(u8);
console.log(u8.length);
crypto.subtle.digest('SHA-256', new TextEncoder().encode('abc')).then((ab) => {
  console.log('subtle', Buffer.from(ab).toString('hex'));
});
