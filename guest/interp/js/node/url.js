'use strict';
// Node's url module: WHATWG URL and URLSearchParams (goja_nodejs), with
// fileURLToPath, pathToFileURL and the legacy parse, format and resolve.
const native = require('__url_native');
const path = require('path');
const NativeURL = native.URL, URLSearchParams = native.URLSearchParams;

// removeDots is RFC 3986's remove_dot_segments.
function removeDots(p) {
  const out = [];
  const segs = p.split('/');
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (s === '.' || s === '%2e' || s === '%2E') { if (i === segs.length - 1) out.push(''); continue; }
    if (s === '..' || /^(%2e|\.)(%2e|\.)$/i.test(s)) {
      if (out.length > 1) out.pop();
      if (i === segs.length - 1) out.push('');
      continue;
    }
    out.push(s);
  }
  return out.join('/');
}

// resolveRef resolves a relative reference against an absolute base, as
// RFC 3986 section 5.2 says.
function resolveRef(base, ref) {
  const b = new NativeURL(base);
  const auth = (b.username ? b.username + (b.password ? ':' + b.password : '') + '@' : '') + b.host;
  const noHash = b.href.replace(/#.*$/, '');
  if (ref === '') return noHash;
  if (ref.startsWith('#')) return noHash + ref;
  if (ref.startsWith('//')) return b.protocol + ref;
  if (ref.startsWith('?')) return b.protocol + '//' + auth + b.pathname + ref;
  const m = /^([^?#]*)(.*)$/.exec(ref);
  let p = m[1];
  if (!p.startsWith('/')) p = b.pathname.replace(/[^/]*$/, '') + p;
  return b.protocol + '//' + auth + removeDots(p) + m[2];
}

// URL is goja_nodejs's, behind a class of ours for two things it does
// differently from Node: a relative input is resolved against the base
// as RFC 3986 says, and searchParams stays live (a change to it changes
// search and href, and a new search changes it).
const kURL = Symbol('url'), kParams = Symbol('params');
// LiveParams is a URL's searchParams: URLSearchParams over its search,
// whose changes are written back to it.
class LiveParams {
  constructor(url) { this._url = url; }
  get _p() { return new URLSearchParams(this._url[kURL].search); }
  _write(p) { this._url[kURL].search = p.toString(); }
  get size() { return [...this._p.keys()].length; }
  get(k) { return this._p.get(k); }
  getAll(k) { return this._p.getAll(k); }
  has(k) { return this._p.has(k); }
  keys() { return this._p.keys(); }
  values() { return this._p.values(); }
  entries() { return this._p.entries(); }
  forEach(fn, self) { this._p.forEach(fn, self); }
  toString() { return this._p.toString(); }
  [Symbol.iterator]() { return this._p.entries(); }
  append(k, v) { const p = this._p; p.append(k, v); this._write(p); }
  set(k, v) { const p = this._p; p.set(k, v); this._write(p); }
  delete(k, v) { const p = this._p; if (v === undefined) p.delete(k); else p.delete(k, v); this._write(p); }
  sort() { const p = this._p; p.sort(); this._write(p); }
}

class URL {
  constructor(input, base) {
    input = String(input);
    let abs = input;
    if (base !== undefined) {
      const b = base instanceof URL ? base.href : String(base);
      new NativeURL(b); // throws ERR_INVALID_URL for a bad base
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(input)) abs = resolveRef(b, input);
    }
    this[kURL] = new NativeURL(abs);
    this[kParams] = null;
  }
  get searchParams() {
    if (this[kParams] === null) this[kParams] = new LiveParams(this);
    return this[kParams];
  }
  get href() { return this[kURL].href; }
  set href(v) { this[kURL] = new NativeURL(String(v)); this[kParams] = null; }
  get search() { return this[kURL].search; }
  set search(v) { this[kURL].search = String(v).replace(/^\?/, ''); this[kParams] = null; }
  toString() { return this.href; }
  toJSON() { return this.href; }
  static canParse(input, base) { try { new URL(input, base); return true; } catch (e) { return false; } }
}
for (const k of ['origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'hash']) {
  Object.defineProperty(URL.prototype, k, {
    get: function () { return this[kURL][k]; },
    set: function (v) { this[kURL][k] = v; },
    enumerable: true, configurable: true,
  });
}
Object.defineProperty(URL.prototype, require('util').inspect.custom, {
  value: function () { return 'URL ' + require('util').inspect({ href: this.href, origin: this.origin, protocol: this.protocol, username: this.username, password: this.password, host: this.host, hostname: this.hostname, port: this.port, pathname: this.pathname, search: this.search, searchParams: this.searchParams, hash: this.hash }); },
});

function fileURLToPath(u) {
  if (typeof u === 'string') u = new URL(u);
  else if (!(u instanceof URL)) {
    const e = new TypeError('The "path" argument must be of type string or an instance of URL. Received ' + typeof u);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
  if (u.protocol !== 'file:') {
    const e = new TypeError('The URL must be of scheme file');
    e.code = 'ERR_INVALID_URL_SCHEME';
    throw e;
  }
  if (u.hostname !== '' && u.hostname !== 'localhost') {
    const e = new TypeError('File URL host must be "localhost" or empty on linux');
    e.code = 'ERR_INVALID_FILE_URL_HOST';
    throw e;
  }
  const p = u.pathname;
  if (/%2f/i.test(p)) {
    const e = new TypeError('File URL path must not include encoded / characters');
    e.code = 'ERR_INVALID_FILE_URL_PATH';
    throw e;
  }
  return decodeURIComponent(p);
}

function pathToFileURL(p) {
  let abs = path.resolve(p);
  if (p.endsWith('/') && !abs.endsWith('/')) abs += '/';
  const enc = abs.split('/').map(function (seg) {
    return encodeURIComponent(seg).replace(/%40/g, '@').replace(/%3A/g, ':').replace(/%2B/g, '+').replace(/%2C/g, ',').replace(/%3D/g, '=').replace(/%26/g, '&').replace(/%24/g, '$').replace(/%21/g, '!').replace(/%27/g, "'").replace(/%28/g, '(').replace(/%29/g, ')').replace(/%2A/g, '*').replace(/%3B/g, ';');
  }).join('/');
  return new URL('file://' + enc);
}

function Url() {}

function parse(s, parseQuery) {
  const u = new Url();
  let rest = String(s).trim();
  const hashAt = rest.indexOf('#');
  u.hash = hashAt >= 0 ? rest.slice(hashAt) : null;
  if (hashAt >= 0) rest = rest.slice(0, hashAt);
  const qAt = rest.indexOf('?');
  u.search = qAt >= 0 ? rest.slice(qAt) : null;
  u.query = qAt >= 0 ? rest.slice(qAt + 1) : null;
  if (qAt >= 0) rest = rest.slice(0, qAt);
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)?(\/\/([^/]*))?(.*)$/.exec(rest);
  u.protocol = m[1] ? m[1].toLowerCase() : null;
  u.slashes = m[2] !== undefined ? true : null;
  let host = m[3] !== undefined ? m[3] : null;
  u.auth = null;
  if (host && host.includes('@')) { u.auth = decodeURIComponent(host.slice(0, host.lastIndexOf('@'))); host = host.slice(host.lastIndexOf('@') + 1); }
  u.host = host !== null ? host.toLowerCase() : null;
  const pm = host ? /^(.*?)(?::(\d*))?$/.exec(host) : null;
  u.port = pm && pm[2] !== undefined ? pm[2] : null;
  u.hostname = pm ? pm[1].toLowerCase() : null;
  u.pathname = m[4] || (u.slashes ? '/' : null);
  u.path = (u.pathname || '') + (u.search || '') || null;
  u.href = format(u);
  if (parseQuery) {
    const q = {};
    new URLSearchParams(u.query || '').forEach(function (v, k) {
      if (k in q) q[k] = [].concat(q[k], v); else q[k] = v;
    });
    u.query = q;
  }
  return u;
}

function format(u) {
  if (typeof u === 'string') return u;
  if (u instanceof URL) return u.href;
  let s = '';
  if (u.protocol) s += u.protocol + (u.protocol.endsWith(':') ? '' : ':');
  if (u.slashes || u.host || u.hostname) s += '//';
  if (u.auth) s += encodeURIComponent(u.auth).replace(/%3A/g, ':') + '@';
  if (u.host) s += u.host;
  else if (u.hostname) s += u.hostname + (u.port ? ':' + u.port : '');
  if (u.pathname) s += u.pathname;
  if (u.search) s += u.search.startsWith('?') ? u.search : '?' + u.search;
  else if (u.query && typeof u.query === 'object') {
    const q = new URLSearchParams(u.query).toString();
    if (q) s += '?' + q;
  }
  if (u.hash) s += u.hash.startsWith('#') ? u.hash : '#' + u.hash;
  return s;
}

function resolve(from, to) { return new URL(to, new URL(from, 'resolve://')).href.replace(/^resolve:\/\//, ''); }

module.exports = {
  URL: URL, URLSearchParams: URLSearchParams,
  domainToASCII: native.domainToASCII, domainToUnicode: native.domainToUnicode,
  fileURLToPath: fileURLToPath, pathToFileURL: pathToFileURL,
  parse: parse, format: format, resolve: resolve, Url: Url,
};
