'use strict';
// The basics of Node's stream module: Readable (from an iterable, push),
// Writable, Transform and PassThrough with their events, pipe and
// pipeline, enough for scripts that wire a few of them together. Written
// for skillrun's JavaScript guest; there is no back-pressure (everything
// is in memory).
const EventEmitter = require('events');

class Stream extends EventEmitter {}

class Readable extends Stream {
  constructor(opts) {
    super();
    opts = opts || {};
    this.readable = true;
    this._objectMode = !!opts.objectMode;
    this._encoding = opts.encoding || null;
    this._queue = [];
    this._ended = false;
    this._flowing = false;
    if (typeof opts.read === 'function') this._read = opts.read;
    const self = this;
    this.on('newListener', function (name) {
      if (name === 'data' || name === 'end' || name === 'readable') self.resume();
    });
  }
  _read() {}
  push(chunk) {
    if (chunk === null) { this._ended = true; this._flush(); return false; }
    if (this._encoding && typeof chunk !== 'string') chunk = String(chunk);
    this._queue.push(chunk);
    this._flush();
    return true;
  }
  setEncoding(enc) { this._encoding = enc; return this; }
  resume() {
    if (!this._flowing) {
      this._flowing = true;
      const self = this;
      setImmediate(function () { self._read(); self._flush(); });
    }
    return this;
  }
  pause() { this._flowing = false; return this; }
  _flush() {
    if (!this._flowing) return;
    while (this._queue.length) this.emit('data', this._queue.shift());
    if (this._ended && !this._endEmitted) {
      this._endEmitted = true;
      this.readable = false;
      this.emit('end');
      this.emit('close');
    }
  }
  pipe(dest) {
    this.on('data', function (c) { dest.write(c); });
    this.on('end', function () { if (dest !== process.stdout && dest !== process.stderr) dest.end(); });
    return dest;
  }
  [Symbol.asyncIterator]() {
    const self = this, chunks = [], waiters = [];
    let done = false;
    this.on('data', function (c) { if (waiters.length) waiters.shift()({ value: c, done: false }); else chunks.push(c); });
    this.on('end', function () { done = true; while (waiters.length) waiters.shift()({ value: undefined, done: true }); });
    return {
      next: function () {
        if (chunks.length) return Promise.resolve({ value: chunks.shift(), done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise(function (r) { waiters.push(r); });
      },
      [Symbol.asyncIterator]: function () { return this; },
    };
  }
  static from(iterable, opts) {
    const r = new Readable(Object.assign({ objectMode: true }, opts));
    r._read = function () {
      for (const c of iterable) r.push(c);
      r.push(null);
      r._read = function () {};
    };
    return r;
  }
}

class Writable extends Stream {
  constructor(opts) {
    super();
    opts = opts || {};
    this.writable = true;
    if (typeof opts.write === 'function') this._write = opts.write;
    if (typeof opts.final === 'function') this._final = opts.final;
  }
  _write(chunk, enc, cb) { cb(); }
  write(chunk, enc, cb) {
    if (typeof enc === 'function') { cb = enc; enc = undefined; }
    const self = this;
    this._write(chunk, enc || 'utf8', function (err) {
      if (err) self.emit('error', err);
      if (cb) cb(err);
    });
    return true;
  }
  end(chunk, enc, cb) {
    if (typeof chunk === 'function') { cb = chunk; chunk = undefined; }
    if (chunk !== undefined && chunk !== null) this.write(chunk, enc);
    const self = this;
    const finish = function () {
      self.writable = false;
      self.emit('finish');
      self.emit('close');
      if (cb) cb();
    };
    if (this._final) this._final(finish); else setImmediate(finish);
    return this;
  }
}

class Duplex extends Readable {
  constructor(opts) {
    super(opts);
    this.writable = true;
    opts = opts || {};
    if (typeof opts.write === 'function') this._write = opts.write;
  }
}
for (const k of ['write', 'end', '_write']) Duplex.prototype[k] = Writable.prototype[k];

class Transform extends Duplex {
  constructor(opts) {
    super(opts);
    opts = opts || {};
    if (typeof opts.transform === 'function') this._transform = opts.transform;
    if (typeof opts.flush === 'function') this._flushFn = opts.flush;
    const self = this;
    this._write = function (chunk, enc, cb) {
      self._transform(chunk, enc, function (err, data) {
        if (data !== undefined && data !== null) self.push(data);
        cb(err);
      });
    };
    this._final = function (done) {
      const end = function (err, data) {
        if (data !== undefined && data !== null) self.push(data);
        self.push(null);
        done();
      };
      if (self._flushFn) self._flushFn(end); else end();
    };
  }
  _transform(chunk, enc, cb) { cb(null, chunk); }
}

class PassThrough extends Transform {}

function pipeline() {
  const streams = Array.prototype.slice.call(arguments);
  const cb = typeof streams[streams.length - 1] === 'function' ? streams.pop() : null;
  for (let i = 0; i < streams.length - 1; i++) streams[i].pipe(streams[i + 1]);
  const last = streams[streams.length - 1];
  const p = new Promise(function (resolve, reject) {
    last.on('finish', resolve);
    last.on('end', resolve);
    for (const s of streams) s.on('error', reject);
  });
  if (cb) p.then(function () { cb(); }, cb);
  return last;
}

module.exports = Stream;
Object.assign(Stream, {
  Stream: Stream, Readable: Readable, Writable: Writable, Duplex: Duplex,
  Transform: Transform, PassThrough: PassThrough, pipeline: pipeline,
  promises: {
    pipeline: function () {
      const streams = Array.prototype.slice.call(arguments);
      return new Promise(function (resolve, reject) { pipeline.apply(null, streams.concat(function (err) { if (err) reject(err); else resolve(); })); });
    },
  },
});
