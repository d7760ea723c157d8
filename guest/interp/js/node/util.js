'use strict';
// Node's util module (format, inspect, promisify, inherits, types, ...),
// as Node documents them and prints values: written for skillrun's
// JavaScript guest. util.format's %-directives come from goja_nodejs's
// util where they agree; inspect is ours (goja_nodejs has none).
const kCustom = Symbol.for('nodejs.util.inspect.custom');
const identRe = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function quote(s) {
  let q = "'";
  if (s.includes("'")) q = !s.includes('"') ? '"' : !s.includes('`') ? '`' : "'";
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === q || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
    else out += ch;
  }
  return q + out + q;
}

function fnName(f) {
  const isClass = /^class\b/.test(Function.prototype.toString.call(f));
  const kind = isClass ? 'class' : (f.constructor && f.constructor.name === 'AsyncFunction' ? 'AsyncFunction' :
    f.constructor && f.constructor.name === 'GeneratorFunction' ? 'GeneratorFunction' : 'Function');
  if (isClass) return '[class ' + (f.name || '(anonymous)') + ']';
  return '[' + kind + (f.name ? ': ' + f.name : ' (anonymous)') + ']';
}

function keyOf(k) {
  if (typeof k === 'symbol') return '[' + k.toString() + ']';
  return identRe.test(k) ? k : quote(k);
}

function ctorName(o) {
  const proto = Object.getPrototypeOf(o);
  if (proto === null) return null;
  const c = proto.constructor;
  return c && typeof c.name === 'string' ? c.name : '';
}

function isBelow(output, start, base, ctx) {
  let total = output.length + start;
  if (total + output.length > ctx.breakLength) return false;
  for (const e of output) {
    total += e.length;
    if (total > ctx.breakLength) return false;
  }
  return base === '' || !base.includes('\n');
}

function reduce(ctx, output, base, braces, extrasType, recurseTimes, value) {
  if (ctx.compact !== true) {
    const entries = output.length;
    if (extrasType === 'array' && entries > 6) output = groupArray(ctx, output, value);
    // Objects whose nesting below is shallow enough fit on one line when
    // short enough, as Node prints them.
    if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
      const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
      if (isBelow(output, start, base, ctx)) {
        const joined = output.join(', ');
        if (!joined.includes('\n')) {
          return (base ? base + ' ' : '') + braces[0] + ' ' + joined + ' ' + braces[1];
        }
      }
    }
    const ind = '\n' + ' '.repeat(ctx.indentationLvl);
    return (base ? base + ' ' : '') + braces[0] + ind + '  ' + output.join(',' + ind + '  ') + ind + braces[1];
  }
  return (base ? base + ' ' : '') + braces[0] + ' ' + output.join(', ') + ' ' + braces[1];
}

function groupArray(ctx, output, value) {
  // Node prints arrays of more than six short entries in columns.
  let totalLength = 0, maxLength = 0, i = 0;
  const outputLength = output.length;
  const separatorSpace = 2, dataLen = new Array(outputLength);
  for (; i < outputLength; i++) {
    const len = output[i].length;
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
      (totalLength / actualMax > 5 || maxLength <= 6)) {
    const approxCharHeights = 2.5, averageBias = Math.sqrt(actualMax - totalLength / output.length), biasedMax = Math.max(actualMax - 3 - averageBias, 1);
    const columns = Math.min(
      Math.round(Math.sqrt(approxCharHeights * biasedMax * outputLength) / biasedMax),
      Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4, 15);
    if (columns <= 1) return output;
    const tmp = [], maxLineLength = [];
    for (let c = 0; c < columns; c++) {
      let lineLength = 0;
      for (let j = c; j < output.length; j += columns) if (dataLen[j] > lineLength) lineLength = dataLen[j];
      maxLineLength.push(lineLength + separatorSpace);
    }
    const pad = value !== undefined && value.every(function (v) { return typeof v === 'number' || typeof v === 'bigint'; }) ? 'padStart' : 'padEnd';
    for (let r = 0; r < outputLength; r += columns) {
      const max = Math.min(r + columns, outputLength);
      let str = '', j = r;
      for (; j < max - 1; j++) {
        const padding = maxLineLength[j - r] + output[j].length - dataLen[j];
        str += (output[j] + ', ')[pad](padding, ' ');
      }
      if (pad === 'padStart') {
        str += output[j].padStart(maxLineLength[j - r] + output[j].length - dataLen[j] - separatorSpace, ' ');
      } else {
        str += output[j];
      }
      tmp.push(str);
    }
    return tmp;
  }
  return output;
}

function formatValue(ctx, v, recurseTimes, typedArray) {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'undefined': return 'undefined';
    case 'string': return quote(v);
    case 'number': return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint': return String(v) + 'n';
    case 'boolean': return String(v);
    case 'symbol': return v.toString();
  }
  if (ctx.customInspect && typeof v[kCustom] === 'function') {
    const r = v[kCustom](recurseTimes, ctx, exportsUtil.inspect);
    if (typeof r !== 'string') return formatValue(ctx, r, recurseTimes);
    return r;
  }
  if (ctx.seen.includes(v)) return '[Circular *1]';
  return formatRaw(ctx, v, recurseTimes);
}

function formatRaw(ctx, v, recurseTimes) {
  const name = ctorName(v);
  const prefix = function (fallback, size) {
    const n = name === null ? '[' + fallback + ': null prototype]' : name;
    return (size !== undefined ? n + '(' + size + ')' : n);
  };
  let braces, keys = Object.keys(v), base = '', output = [], extrasType = 'object';
  if (typeof v === 'function') {
    base = fnName(v);
    if (keys.length === 0) return base;
    braces = ['{', '}'];
  } else if (Array.isArray(v)) {
    const p = name === 'Array' ? '' : prefix('Array', v.length) + ' ';
    braces = [p + '[', ']'];
    if (v.length === 0 && keys.length === 0) return braces[0] + ']';
    extrasType = 'array';
    keys = keys.filter(function (k) { return !(String(k >>> 0) === k && (k >>> 0) < v.length); });
  } else if (typeof Buffer !== 'undefined' && Buffer.isBuffer && Buffer.isBuffer(v)) {
    let hex = [];
    for (let i = 0; i < Math.min(v.length, 50); i++) hex.push(v[i].toString(16).padStart(2, '0'));
    return '<Buffer' + (hex.length ? ' ' + hex.join(' ') : '') + (v.length > 50 ? ' ... ' + (v.length - 50) + ' more bytes' : '') + '>';
  } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    braces = [prefix('TypedArray', v.length) + ' [', ']'];
    if (v.length === 0) return braces[0] + ']';
    extrasType = 'array';
    keys = [];
  } else if (v instanceof Map) {
    braces = [prefix('Map', v.size) + ' {', '}'];
    if (v.size === 0 && keys.length === 0) return braces[0] + '}';
  } else if (v instanceof Set) {
    braces = [prefix('Set', v.size) + ' {', '}'];
    if (v.size === 0 && keys.length === 0) return braces[0] + '}';
    extrasType = 'array';
  } else if (v instanceof Date) {
    base = isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
    if (keys.length === 0) return base;
    braces = ['{', '}'];
  } else if (v instanceof RegExp) {
    base = String(v);
    if (keys.length === 0) return base;
    braces = ['{', '}'];
  } else if (v instanceof Error) {
    base = v.stack ? String(v.stack) : Error.prototype.toString.call(v);
    keys = keys.filter(function (k) { return k !== 'stack' && k !== 'message'; });
    if (keys.length === 0) return base;
    braces = ['{', '}'];
  } else if (v instanceof Promise) {
    return 'Promise { <pending> }';
  } else if (v instanceof ArrayBuffer) {
    braces = ['ArrayBuffer {', '}'];
    keys = [];
    output.push('[Uint8Contents]: <' + Array.from(new Uint8Array(v)).map(function (b) { return b.toString(16).padStart(2, '0'); }).join(' ') + '>', 'byteLength: ' + v.byteLength);
  } else {
    if (typeof Symbol.toStringTag === 'symbol' && v[Symbol.toStringTag] && name === 'Object') {
      braces = ['Object [' + v[Symbol.toStringTag] + '] {', '}'];
    } else {
      braces = [name === 'Object' ? '{' : prefix('Object') + ' {', '}'];
    }
    if (keys.length === 0 && Object.getOwnPropertySymbols(v).length === 0) {
      return name === 'Object' ? '{}' : braces[0] + '}';
    }
  }
  if (recurseTimes > ctx.depth && ctx.depth !== null) {
    return '[' + (Array.isArray(v) ? 'Array' : (name || 'Object')) + ']';
  }
  recurseTimes++;
  ctx.seen.push(v);
  ctx.currentDepth = recurseTimes;
  const indent = ctx.indentationLvl;
  ctx.indentationLvl += 2;
  if (Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView))) {
    const max = Math.min(v.length, 100);
    let holes = 0;
    for (let i = 0; i < max; i++) {
      if (Array.isArray(v) && !Object.prototype.hasOwnProperty.call(v, i)) { holes++; continue; }
      if (holes) { output.push('<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>'); holes = 0; }
      output.push(formatValue(ctx, v[i], recurseTimes));
    }
    if (holes) output.push('<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>');
    if (v.length > max) output.push('... ' + (v.length - max) + ' more item' + (v.length - max > 1 ? 's' : ''));
  } else if (v instanceof Map) {
    for (const [k, val] of v) output.push(formatValue(ctx, k, recurseTimes) + ' => ' + formatValue(ctx, val, recurseTimes));
  } else if (v instanceof Set) {
    for (const val of v) output.push(formatValue(ctx, val, recurseTimes));
  }
  for (const k of keys) {
    const desc = Object.getOwnPropertyDescriptor(v, k) || { value: v[k] };
    let str;
    if (desc.get !== undefined || desc.set !== undefined) {
      str = desc.get ? (desc.set ? '[Getter/Setter]' : '[Getter]') : '[Setter]';
    } else {
      str = formatValue(ctx, desc.value, recurseTimes);
    }
    output.push(keyOf(k) + ': ' + str);
  }
  for (const s of Object.getOwnPropertySymbols(v)) {
    if (Object.prototype.propertyIsEnumerable.call(v, s)) output.push('[' + s.toString() + ']: ' + formatValue(ctx, v[s], recurseTimes));
  }
  ctx.seen.pop();
  ctx.indentationLvl = indent;
  return reduce(ctx, output, base, braces, extrasType, recurseTimes, Array.isArray(v) ? v : undefined);
}

function inspect(v, opts) {
  const ctx = { depth: 2, seen: [], indentationLvl: 0, currentDepth: 0, compact: 3, breakLength: 80, customInspect: true };
  if (typeof opts === 'object' && opts !== null) {
    if ('depth' in opts) ctx.depth = opts.depth === Infinity ? null : opts.depth;
    if ('compact' in opts) ctx.compact = opts.compact;
    if ('breakLength' in opts) ctx.breakLength = opts.breakLength;
    if ('customInspect' in opts) ctx.customInspect = opts.customInspect;
  }
  return formatValue(ctx, v, 0);
}
inspect.custom = kCustom;

function format(f) {
  const args = Array.prototype.slice.call(arguments);
  let out = '', i = 0;
  if (typeof f === 'string') {
    i = 1;
    let last = 0;
    for (let p = f.indexOf('%'); p >= 0 && p < f.length - 1; p = f.indexOf('%', p + 1)) {
      const c = f[p + 1];
      let rep;
      if (c === '%') { out += f.slice(last, p) + '%'; last = p + 2; p++; continue; }
      if (i >= args.length) continue;
      const a = args[i];
      switch (c) {
        case 's': rep = typeof a === 'string' ? a : typeof a === 'bigint' ? a + 'n' : (typeof a === 'object' && a !== null) ? inspect(a, { depth: 0 }) : String(a); break;
        case 'd': case 'i': rep = typeof a === 'bigint' ? a + 'n' : typeof a === 'symbol' ? 'NaN' : String(c === 'i' ? parseInt(a) : Number(a)); break;
        case 'f': rep = String(parseFloat(a)); break;
        case 'j': try { rep = JSON.stringify(a); } catch (e) { rep = '[Circular]'; } break;
        case 'o': case 'O': rep = inspect(a); break;
        case 'c': rep = ''; break;
        default: continue;
      }
      out += f.slice(last, p) + rep;
      last = p + 2;
      p++;
      i++;
    }
    out += f.slice(last);
  }
  for (; i < args.length; i++) {
    const a = args[i];
    out += (out === '' && i === 0 ? '' : ' ') + (typeof a === 'string' ? a : inspect(a));
  }
  return out;
}

function promisify(fn) {
  if (typeof fn !== 'function') throw new TypeError('The "original" argument must be of type function');
  if (fn[promisify.custom]) return fn[promisify.custom];
  return function () {
    const args = Array.prototype.slice.call(arguments);
    const self = this;
    return new Promise(function (resolve, reject) {
      fn.apply(self, args.concat(function (err, value) { if (err) reject(err); else resolve(value); }));
    });
  };
}
promisify.custom = Symbol.for('nodejs.util.promisify.custom');

function callbackify(fn) {
  return function () {
    const args = Array.prototype.slice.call(arguments);
    const cb = args.pop();
    fn.apply(this, args).then(function (v) { cb(null, v); }, function (e) { cb(e); });
  };
}

function inherits(ctor, superCtor) {
  Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

function deprecate(fn, msg) {
  let warned = false;
  return function () {
    if (!warned) { warned = true; process.emitWarning ? process.emitWarning(msg, 'DeprecationWarning') : console.error('(node) DeprecationWarning: ' + msg); }
    return fn.apply(this, arguments);
  };
}

const types = {
  isDate: function (v) { return v instanceof Date; },
  isRegExp: function (v) { return v instanceof RegExp; },
  isPromise: function (v) { return v instanceof Promise; },
  isMap: function (v) { return v instanceof Map; },
  isSet: function (v) { return v instanceof Set; },
  isNativeError: function (v) { return v instanceof Error; },
  isTypedArray: function (v) { return ArrayBuffer.isView(v) && !(v instanceof DataView); },
  isUint8Array: function (v) { return v instanceof Uint8Array; },
  isArrayBuffer: function (v) { return v instanceof ArrayBuffer; },
  isAsyncFunction: function (v) { return typeof v === 'function' && v.constructor && v.constructor.name === 'AsyncFunction'; },
};

const exportsUtil = module.exports = {
  format: format,
  formatWithOptions: function (opts) { return format.apply(null, Array.prototype.slice.call(arguments, 1)); },
  inspect: inspect,
  promisify: promisify,
  callbackify: callbackify,
  inherits: inherits,
  deprecate: deprecate,
  types: types,
  isDeepStrictEqual: function (a, b) {
    try { require('assert').deepStrictEqual(a, b); return true; } catch (e) { return false; }
  },
  isArray: Array.isArray,
  TextEncoder: globalThis.TextEncoder,
  TextDecoder: globalThis.TextDecoder,
};
