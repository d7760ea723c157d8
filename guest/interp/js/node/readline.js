'use strict';
// Node's readline module over a stream that emits 'data' and 'end'
// (process.stdin, a file stream): 'line' and 'close' events, question,
// and async iteration of the lines. Written for skillrun's JavaScript
// guest.
const EventEmitter = require('events');

class Interface extends EventEmitter {
  constructor(input, output) {
    super();
    if (input && typeof input === 'object' && !input.on && input.input) { output = input.output; input = input.input; }
    this.input = input;
    this.output = output;
    this.closed = false;
    this._buf = '';
    this._lines = [];
    this._waiters = [];
    this._questions = [];
    this._ended = false;
    const self = this;
    if (input && input.on) {
      input.on('data', function (chunk) { self._push(String(chunk)); });
      input.on('end', function () { self._end(); });
    }
  }
  _push(s) {
    this._buf += s;
    let i;
    while ((i = this._buf.indexOf('\n')) >= 0) {
      let line = this._buf.slice(0, i);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      this._buf = this._buf.slice(i + 1);
      this._line(line);
    }
  }
  _line(line) {
    if (this.closed) return;
    if (this._questions.length) { this._questions.shift()(line); return; }
    if (this._waiters.length) { this._waiters.shift()({ value: line, done: false }); return; }
    if (this.listenerCount('line') > 0) this.emit('line', line);
    else this._lines.push(line);
  }
  _end() {
    if (this._buf.length) { const l = this._buf; this._buf = ''; this._line(l); }
    this._ended = true;
    this.close();
  }
  close() {
    if (this.closed) return;
    this.closed = true;
    while (this._waiters.length) this._waiters.shift()({ value: undefined, done: true });
    this.emit('close');
  }
  question(query, opts, cb) {
    if (typeof opts === 'function') cb = opts;
    if (this.output && this.output.write) this.output.write(query);
    this._questions.push(cb);
  }
  setPrompt(p) { this._prompt = p; }
  prompt() { if (this.output && this.output.write) this.output.write(this._prompt || '> '); }
  write(s) { if (this.output && this.output.write) this.output.write(s); }
  pause() { return this; }
  resume() { return this; }
  [Symbol.asyncIterator]() {
    const self = this;
    return {
      next: function () {
        if (self._lines.length) return Promise.resolve({ value: self._lines.shift(), done: false });
        if (self.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise(function (resolve) { self._waiters.push(resolve); });
      },
      return: function () { self.close(); return Promise.resolve({ value: undefined, done: true }); },
      [Symbol.asyncIterator]: function () { return this; },
    };
  }
}

module.exports = {
  Interface: Interface,
  createInterface: function (input, output) { return new Interface(input, output); },
  clearLine: function (stream, dir, cb) { if (cb) cb(); return true; },
  cursorTo: function (stream, x, y, cb) { if (typeof y === 'function') y(); else if (cb) cb(); return true; },
  moveCursor: function (stream, dx, dy, cb) { if (cb) cb(); return true; },
  emitKeypressEvents: function () {},
};
