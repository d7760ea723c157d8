const assert = require('assert');
const strict = require('node:assert/strict');
assert(true);
assert.ok(1);
assert.equal(1, '1');
assert.deepEqual({ a: 1 }, { a: '1' });
strict.deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] });
assert.deepStrictEqual(new Map([[1, 2]]), new Map([[1, 2]]));
assert.notStrictEqual(1, 2);
assert.throws(() => { throw new TypeError('bad'); }, TypeError);
assert.throws(() => { throw new Error('msg here'); }, /msg/);
assert.throws(() => { throw new Error('x'); }, { message: 'x' });
assert.match('abc', /b/);
for (const [name, fn] of [
  ['strictEqual', () => assert.strictEqual(1, 2)],
  ['deepStrictEqual', () => assert.deepStrictEqual({ a: 1 }, { a: 2 })],
  ['ok', () => assert.ok(0)],
  ['throws', () => assert.throws(() => {})],
  ['custom', () => assert.equal(1, 2, 'my message')],
  ['strict.equal', () => strict.equal(1, '1')],
]) {
  try { fn(); console.log(name, 'did not throw'); } catch (e) {
    console.log(name, e.name, e.code, e instanceof assert.AssertionError, name === 'custom' ? e.message : '');
  }
}
assert.rejects(Promise.reject(new Error('r')), /r/).then(() => console.log('rejects ok'));
console.log(strict.strict === strict, typeof assert.strict);
