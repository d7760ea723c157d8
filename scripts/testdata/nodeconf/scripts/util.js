const util = require('util');
console.log(util.format('%s:%d:%i:%j %%', 'a', 3.5, 3.5, { k: [1] }), util.format('x', 1, 'y'));
console.log(util.inspect({ a: 1, s: 'str', n: null, u: undefined, arr: [1, 'two', { three: 3 }], nested: { a: { b: { c: { d: 1 } } } } }));
console.log(util.inspect(new Map([['a', 1], ['b', { c: 2 }]])), util.inspect(new Set([1, 'x'])));
class Point { constructor() { this.x = 1; this.y = 2; } }
console.log(new Point(), [new Point()], Object.create(null));
console.log(Array.from({ length: 30 }, (_, i) => i * 3));
console.log(['apple', 'banana', 'cherry', 'dates', 'elderberry', 'figs', 'grapes', 'honeydew']);
console.log({ longKeyNumberOne: 'a fairly long string value', longKeyNumberTwo: 'another fairly long value here', third: 3 });
console.log([[1, 2, [3, 4, [5, [6]]]]], { f() {}, g: () => 1, h: function named() {} });
console.log(-0, [-0], 1e21, 10n, Symbol('s'), [undefined, null], [, 1]);
console.log('%s', { a: 1 }, 'it\'s', ["it's"]);
console.log(new Error('e1').message, util.types.isDate(new Date()), util.isDeepStrictEqual({ a: [1] }, { a: [1] }));
const readFileP = util.promisify((p, cb) => setTimeout(() => cb(null, 'read ' + p), 1));
readFileP('x').then((v) => console.log(v));
function A() {}
function B() {}
util.inherits(B, A);
console.log(new B() instanceof A, typeof util.inspect.custom);
console.log(util.inspect('str'), util.inspect([1, [2, [3, [4, [5]]]]]), util.inspect({ a: { b: { c: {} } } }, { depth: 0 }));
console.log({ 'key-with-dash': 1, valid_id: 2, 3: 'num' });
