'use strict';
// Node's assert module (the strict and legacy forms), as Node documents
// it: written for skillrun's JavaScript guest.
const util = require('util');

class AssertionError extends Error {
  constructor(options) {
    super(options.message);
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator;
    this.generatedMessage = !options.userMessage;
  }
}

function fail(actual, expected, message, operator, defaultMessage) {
  if (message instanceof Error) throw message;
  throw new AssertionError({
    message: message !== undefined ? message : defaultMessage,
    userMessage: message !== undefined,
    actual: actual, expected: expected, operator: operator,
  });
}

function show(v) { return util.inspect(v); }

function isDeepEqual(a, b, strict, seen) {
  if (strict ? Object.is(a, b) : (a == b || (a !== a && b !== b))) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  seen = seen || [];
  for (const [x, y] of seen) if (x === a && y === b) return true;
  seen.push([a, b]);
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !isDeepEqual(v, b.get(k), strict, seen)) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!isDeepEqual(a[k], b[k], strict, seen)) return false;
  }
  return true;
}

function matches(err, expected) {
  if (expected === undefined) return true;
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && err instanceof expected) return true;
    if (Error.isPrototypeOf(expected) || expected === Error) return false;
    return expected.call({}, err) === true;
  }
  if (expected instanceof RegExp) return expected.test(String(err));
  if (typeof expected === 'object') {
    for (const k of Object.keys(expected)) {
      const want = expected[k];
      if (want instanceof RegExp && typeof err[k] === 'string' ? !want.test(err[k]) : !isDeepEqual(err[k], want, true)) return false;
    }
    return true;
  }
  return false;
}

function build(strict) {
  const assert = function ok(value, message) {
    if (!value) fail(value, true, message, '==', 'The expression evaluated to a falsy value:\n\n  assert.ok(' + show(value) + ')\n');
  };
  assert.ok = assert;
  assert.AssertionError = AssertionError;
  assert.fail = function (message) {
    fail(undefined, undefined, message === undefined ? 'Failed' : message, 'fail', 'Failed');
  };
  assert.strictEqual = function (a, b, message) {
    if (!Object.is(a, b)) fail(a, b, message, 'strictEqual', 'Expected values to be strictly equal:\n\n' + show(a) + ' !== ' + show(b) + '\n');
  };
  assert.notStrictEqual = function (a, b, message) {
    if (Object.is(a, b)) fail(a, b, message, 'notStrictEqual', 'Expected "actual" to be strictly unequal to: ' + show(b));
  };
  assert.deepStrictEqual = function (a, b, message) {
    if (!isDeepEqual(a, b, true)) fail(a, b, message, 'deepStrictEqual', 'Expected values to be strictly deep-equal:\n' + show(a) + '\n\nshould equal\n\n' + show(b));
  };
  assert.notDeepStrictEqual = function (a, b, message) {
    if (isDeepEqual(a, b, true)) fail(a, b, message, 'notDeepStrictEqual', 'Expected "actual" not to be strictly deep-equal to: ' + show(b));
  };
  assert.equal = strict ? assert.strictEqual : function (a, b, message) {
    if (!(a == b || (a !== a && b !== b))) fail(a, b, message, '==', show(a) + ' == ' + show(b));
  };
  assert.notEqual = strict ? assert.notStrictEqual : function (a, b, message) {
    if (a == b) fail(a, b, message, '!=', show(a) + ' != ' + show(b));
  };
  assert.deepEqual = strict ? assert.deepStrictEqual : function (a, b, message) {
    if (!isDeepEqual(a, b, false)) fail(a, b, message, 'deepEqual', 'Expected values to be loosely deep-equal:\n\n' + show(a) + '\n\nshould loosely deep-equal\n\n' + show(b));
  };
  assert.notDeepEqual = strict ? assert.notDeepStrictEqual : function (a, b, message) {
    if (isDeepEqual(a, b, false)) fail(a, b, message, 'notDeepEqual', '"actual" deepEqual "expected"');
  };
  assert.throws = function (fn, expected, message) {
    if (typeof expected === 'string') { message = expected; expected = undefined; }
    try { fn(); } catch (err) {
      if (!matches(err, expected)) throw err;
      return;
    }
    fail(undefined, expected, message, 'throws', 'Missing expected exception.');
  };
  assert.doesNotThrow = function (fn, message) {
    try { fn(); } catch (err) {
      fail(err, undefined, message, 'doesNotThrow', 'Got unwanted exception.\nActual message: "' + (err && err.message) + '"');
    }
  };
  assert.rejects = async function (p, expected, message) {
    if (typeof p === 'function') p = p();
    try { await p; } catch (err) {
      if (!matches(err, expected)) throw err;
      return;
    }
    fail(undefined, expected, message, 'rejects', 'Missing expected rejection.');
  };
  assert.doesNotReject = async function (p, message) {
    if (typeof p === 'function') p = p();
    try { await p; } catch (err) {
      fail(err, undefined, message, 'doesNotReject', 'Got unwanted rejection.\nActual message: "' + (err && err.message) + '"');
    }
  };
  assert.match = function (s, re, message) {
    if (!re.test(s)) fail(s, re, message, 'match', 'The input did not match the regular expression ' + String(re) + '. Input:\n\n' + show(s) + '\n');
  };
  assert.doesNotMatch = function (s, re, message) {
    if (re.test(s)) fail(s, re, message, 'doesNotMatch', 'The input was expected to not match the regular expression ' + String(re) + '. Input:\n\n' + show(s) + '\n');
  };
  assert.ifError = function (v) { if (v !== null && v !== undefined) throw v; };
  return assert;
}

const legacy = build(false);
legacy.strict = build(true);
legacy.strict.strict = legacy.strict;
module.exports = legacy;
