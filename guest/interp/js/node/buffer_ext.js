'use strict';
// What goja_nodejs's Buffer lacks of Node's, added to it: isBuffer,
// byteLength, compare, allocUnsafe, slice and subarray that share memory,
// toJSON, indexOf and includes of strings and buffers, copy, fill, write,
// and the encodings latin1, binary, ascii, base64url and utf16le
// (host.encode and host.decode, in Go).
(function (host) {
  const B = Buffer;
  const extra = { latin1: 1, binary: 1, ascii: 1, base64url: 1, utf16le: 1, 'utf-16le': 1, ucs2: 1, 'ucs-2': 1 };
  const norm = function (e) { return typeof e === 'string' ? e.toLowerCase() : e; };
  const from = B.from;
  B.from = function (v, enc, len) {
    if (typeof v === 'string' && extra[norm(enc)]) return host.decode(v, norm(enc));
    if (typeof v === 'string' && norm(enc) === 'utf-8') enc = 'utf8';
    return from.call(B, v, enc, len);
  };
  B.isBuffer = function (v) { return v instanceof B; };
  B.isEncoding = function (e) { return ['utf8', 'utf-8', 'hex', 'base64', 'base64url', 'latin1', 'binary', 'ascii', 'utf16le', 'ucs2'].indexOf(norm(e)) >= 0; };
  B.byteLength = function (v, enc) {
    if (typeof v === 'string') return B.from(v, enc).length;
    return v.byteLength;
  };
  B.compare = function (a, b) { return a.compare(b); };
  B.allocUnsafe = B.allocUnsafeSlow = function (n) { return B.alloc(n); };
  const P = B.prototype;
  const toString = P.toString;
  P.toString = function (enc, start, end) {
    let b = this;
    if (start !== undefined || end !== undefined) b = this.subarray(start || 0, end === undefined ? this.length : end);
    if (extra[norm(enc)]) return host.encode(b, norm(enc));
    if (norm(enc) === 'utf-8') enc = 'utf8';
    return toString.call(b, enc);
  };
  P.subarray = P.slice = function (start, end) {
    const len = this.length;
    let s = start === undefined ? 0 : Math.trunc(start), e = end === undefined ? len : Math.trunc(end);
    if (s < 0) s = Math.max(len + s, 0); else s = Math.min(s, len);
    if (e < 0) e = Math.max(len + e, 0); else e = Math.min(e, len);
    if (e < s) e = s;
    return from.call(B, this.buffer, this.byteOffset + s, e - s);
  };
  P.toJSON = function () { return { type: 'Buffer', data: Array.from(this) }; };
  P.compare = function (o) {
    const n = Math.min(this.length, o.length);
    for (let i = 0; i < n; i++) if (this[i] !== o[i]) return this[i] < o[i] ? -1 : 1;
    return this.length === o.length ? 0 : this.length < o.length ? -1 : 1;
  };
  const needle = function (v, enc) {
    if (typeof v === 'number') return [v & 255];
    if (typeof v === 'string') return B.from(v, enc);
    return v;
  };
  P.indexOf = function (v, from, enc) {
    if (typeof from === 'string') { enc = from; from = 0; }
    const n = needle(v, enc);
    let i = from === undefined ? 0 : (from < 0 ? Math.max(this.length + from, 0) : from);
    outer: for (; i + n.length <= this.length; i++) {
      for (let j = 0; j < n.length; j++) if (this[i + j] !== n[j]) continue outer;
      return i;
    }
    return -1;
  };
  P.lastIndexOf = function (v, from, enc) {
    const n = needle(v, enc);
    for (let i = Math.min(from === undefined ? this.length - n.length : from, this.length - n.length); i >= 0; i--) {
      let ok = true;
      for (let j = 0; j < n.length; j++) if (this[i + j] !== n[j]) { ok = false; break; }
      if (ok) return i;
    }
    return -1;
  };
  P.includes = function (v, from, enc) { return this.indexOf(v, from, enc) !== -1; };
  P.copy = function (target, ts, ss, se) {
    ts = ts || 0; ss = ss || 0; se = se === undefined ? this.length : se;
    const n = Math.max(0, Math.min(se - ss, target.length - ts));
    for (let i = 0; i < n; i++) target[ts + i] = this[ss + i];
    return n;
  };
  const fill = Uint8Array.prototype.fill;
  P.fill = function (v, start, end, enc) {
    if (typeof v === 'string') {
      const b = B.from(v, typeof start === 'string' ? start : enc);
      if (typeof start === 'string') start = 0;
      start = start || 0; end = end === undefined ? this.length : end;
      for (let i = start, j = 0; i < end && b.length; i++, j = (j + 1) % b.length) this[i] = b[j];
      return this;
    }
    return fill.call(this, v, start, end);
  };
  P.write = function (s, offset, length, enc) {
    if (typeof offset === 'string') { enc = offset; offset = 0; length = undefined; }
    if (typeof length === 'string') { enc = length; length = undefined; }
    offset = offset || 0;
    const b = B.from(s, enc);
    const n = Math.min(b.length, this.length - offset, length === undefined ? Infinity : length);
    for (let i = 0; i < n; i++) this[offset + i] = b[i];
    return n;
  };
  P.toLocaleString = P.toString;
  P.inspect = undefined;
})
