'use strict';
// Node's timers/promises: promise forms of the timers.
module.exports = {
  setTimeout: function (ms, value) {
    return new Promise(function (resolve) { setTimeout(function () { resolve(value); }, ms); });
  },
  setImmediate: function (value) {
    return new Promise(function (resolve) { setImmediate(function () { resolve(value); }); });
  },
  setInterval: function (ms, value) {
    let pending = [], waiting = [];
    const id = setInterval(function () {
      if (waiting.length) waiting.shift()({ value: value, done: false });
      else pending.push(value);
    }, ms);
    return {
      [Symbol.asyncIterator]: function () { return this; },
      next: function () {
        if (pending.length) return Promise.resolve({ value: pending.shift(), done: false });
        return new Promise(function (resolve) { waiting.push(resolve); });
      },
      return: function () { clearInterval(id); return Promise.resolve({ value: undefined, done: true }); },
    };
  },
  scheduler: {
    wait: function (ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); },
    yield: function () { return new Promise(function (resolve) { setImmediate(resolve); }); },
  },
};
