'use strict';
// The globals of skillrun's JavaScript guest that Node scripts expect,
// set up once before the script runs: console (util.format and
// util.inspect, as Node prints), timers whose callbacks' errors end the
// script as uncaught errors do in Node, process as an EventEmitter with
// nextTick, stdin, hrtime and the 'exit' event, TextEncoder and
// TextDecoder, atob and btoa, queueMicrotask, structuredClone and the Web
// Crypto global. `host` holds the Go side (node.go).
(function (host, require) {
  // goja has no Symbol.asyncIterator: the name esbuild's lowered for
  // await looks for when Symbol lacks it.
  if (!Symbol.asyncIterator) Object.defineProperty(Symbol, 'asyncIterator', { value: Symbol.for('Symbol.asyncIterator') });
  const util = require('util');
  const EventEmitter = require('events');

  // console
  let groupIndent = '';
  const counts = new Map(), timers = new Map();
  function writer(fd) {
    return function () {
      let s = util.format.apply(null, arguments);
      if (groupIndent) s = groupIndent + s.split('\n').join('\n' + groupIndent);
      host.write(fd, s + '\n');
    };
  }
  const console = {
    log: writer(1), info: writer(1), debug: writer(1),
    error: writer(2), warn: writer(2), trace: function () {
      const e = new Error(util.format.apply(null, arguments));
      host.write(2, 'Trace: ' + e.message + '\n');
    },
    dir: function (v, opts) { host.write(1, util.inspect(v, opts) + '\n'); },
    assert: function (v) {
      if (!v) {
        const rest = Array.prototype.slice.call(arguments, 1);
        writer(2).apply(null, rest.length ? ['Assertion failed:'].concat(rest) : ['Assertion failed']);
      }
    },
    group: function () { if (arguments.length) writer(1).apply(null, arguments); groupIndent += '  '; },
    groupEnd: function () { groupIndent = groupIndent.slice(2); },
    count: function (label) {
      label = label === undefined ? 'default' : String(label);
      const n = (counts.get(label) || 0) + 1;
      counts.set(label, n);
      writer(1)(label + ': ' + n);
    },
    countReset: function (label) { counts.delete(label === undefined ? 'default' : String(label)); },
    time: function (label) { timers.set(label === undefined ? 'default' : String(label), Date.now()); },
    timeLog: function (label) {
      label = label === undefined ? 'default' : String(label);
      if (timers.has(label)) writer(1)(label + ': ' + (Date.now() - timers.get(label)) + 'ms');
    },
    timeEnd: function (label) {
      label = label === undefined ? 'default' : String(label);
      if (timers.has(label)) { writer(1)(label + ': ' + (Date.now() - timers.get(label)) + 'ms'); timers.delete(label); }
    },
    table: function (data) { writer(1)(data); },
  };
  console.groupCollapsed = console.group;
  globalThis.console = console;

  // timers: callbacks run through host.call, which reports an uncaught
  // error and ends the script, as Node does.
  const raw = {
    setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval, setImmediate: globalThis.setImmediate,
    clearTimeout: globalThis.clearTimeout, clearInterval: globalThis.clearInterval, clearImmediate: globalThis.clearImmediate,
  };
  let nextId = 1;
  function handle(kind, h) {
    const t = { _h: h, _kind: kind, _id: nextId++ };
    t.ref = function () { return t; };
    t.unref = function () {
      // The loop would wait for it; an unref'd timer is one the script
      // does not wait for, so it is cancelled.
      raw[kind === 'interval' ? 'clearInterval' : 'clearTimeout'](t._h);
      return t;
    };
    t.hasRef = function () { return true; };
    t.refresh = function () { return t; };
    t[Symbol.toPrimitive] = function () { return t._id; };
    return t;
  }
  function unwrap(t) { return t && typeof t === 'object' && '_h' in t ? t._h : t; }
  globalThis.setTimeout = function (fn, ms) {
    const args = Array.prototype.slice.call(arguments, 2);
    return handle('timeout', raw.setTimeout(function () { host.call(fn, args); }, Number(ms) || 0));
  };
  globalThis.setInterval = function (fn, ms) {
    const args = Array.prototype.slice.call(arguments, 2);
    return handle('interval', raw.setInterval(function () { host.call(fn, args); }, Number(ms) || 0));
  };
  globalThis.setImmediate = function (fn) {
    const args = Array.prototype.slice.call(arguments, 1);
    return handle('immediate', raw.setImmediate(function () { host.call(fn, args); }));
  };
  globalThis.clearTimeout = function (t) { if (t !== undefined && t !== null) raw.clearTimeout(unwrap(t)); };
  globalThis.clearInterval = function (t) { if (t !== undefined && t !== null) raw.clearInterval(unwrap(t)); };
  globalThis.clearImmediate = function (t) { if (t !== undefined && t !== null) raw.clearImmediate(unwrap(t)); };
  globalThis.queueMicrotask = function (fn) { Promise.resolve().then(function () { host.call(fn, []); }); };

  // process
  const proc = globalThis.process;
  for (const k of Object.getOwnPropertyNames(EventEmitter.prototype)) {
    if (k !== 'constructor') proc[k] = EventEmitter.prototype[k];
  }
  proc._events = Object.create(null);
  proc.nextTick = function (fn) {
    const args = Array.prototype.slice.call(arguments, 1);
    Promise.resolve().then(function () { host.call(fn, args); });
  };
  proc.hrtime = function (prev) {
    const ns = host.nanotime();
    let s = Math.floor(ns / 1e9), n = ns % 1e9;
    if (prev) { s -= prev[0]; n -= prev[1]; if (n < 0) { s--; n += 1e9; } }
    return [s, n];
  };
  proc.hrtime.bigint = function () { return BigInt(host.nanotime()); };
  proc.uptime = function () { return host.nanotime() / 1e9; };
  proc.memoryUsage = function () { return { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }; };
  proc.emitWarning = function (w, type) {
    const msg = w instanceof Error ? w.name + ': ' + w.message : (type || 'Warning') + ': ' + w;
    host.write(2, '(node) ' + msg + '\n');
  };
  proc.version = 'v20.0.0';
  proc.versions = { node: '20.0.0' };
  proc.release = { name: 'node' };
  proc.arch = 'wasm32';
  proc.pid = 1;
  proc.ppid = 0;
  proc.execPath = '/usr/bin/node';
  proc.execArgv = [];
  proc.exitCode = undefined;
  proc.stdout.isTTY = false;
  proc.stderr.isTTY = false;
  proc.stdout.on = proc.stderr.on = proc.stdout.once = proc.stderr.once = function () { return this; };
  proc.stdout.end = proc.stderr.end = function (s) { if (s !== undefined) this.write(s); };
  proc.stdout.columns = 80;

  const stdin = new EventEmitter();
  let stdinStarted = false, encoding = null;
  function startStdin() {
    if (stdinStarted) return;
    stdinStarted = true;
    setImmediate(function () {
      const s = host.stdin();
      if (s.length) stdin.emit('data', encoding ? s : Buffer.from(s));
      stdin.emit('end');
      stdin.emit('close');
    });
  }
  stdin.on('newListener', function (name) { if (name === 'data' || name === 'end' || name === 'readable') startStdin(); });
  stdin.setEncoding = function (e) { encoding = e || 'utf8'; return stdin; };
  stdin.resume = function () { startStdin(); return stdin; };
  stdin.pause = function () { return stdin; };
  stdin.isTTY = false;
  stdin.fd = 0;
  stdin.read = function () { return null; };
  stdin[Symbol.asyncIterator] = function () {
    let done = false;
    return {
      next: function () {
        if (done) return Promise.resolve({ value: undefined, done: true });
        done = true;
        const s = host.stdin();
        return Promise.resolve(s.length ? { value: encoding ? s : Buffer.from(s), done: false } : { value: undefined, done: true });
      },
      [Symbol.asyncIterator]: function () { return this; },
    };
  };
  proc.stdin = stdin;

  // encodings
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(s) { const b = Buffer.from(s === undefined ? '' : String(s), 'utf8'); return new Uint8Array(b.buffer, b.byteOffset, b.length); }
  }
  class TextDecoder {
    constructor(enc) { this.encoding = (enc || 'utf-8').toLowerCase(); }
    decode(u) {
      if (u === undefined) return '';
      if (u instanceof ArrayBuffer) u = new Uint8Array(u);
      return Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('utf8');
    }
  }
  globalThis.TextEncoder = TextEncoder;
  globalThis.TextDecoder = TextDecoder;
  util.TextEncoder = TextEncoder;
  util.TextDecoder = TextDecoder;
  globalThis.atob = function (s) { return host.atob(String(s)); };
  globalThis.btoa = function (s) { return host.btoa(String(s)); };
  globalThis.structuredClone = function (v) { return v === undefined ? undefined : JSON.parse(JSON.stringify(v)); };
  globalThis.crypto = require('crypto').webcrypto;
  globalThis.URL = require('url').URL;
  globalThis.URLSearchParams = require('url').URLSearchParams;
  globalThis.global = globalThis;
})
