'use strict';
// Node's string_decoder: a Buffer decoder that keeps a multi-byte UTF-8
// character split between chunks for the next one.
class StringDecoder {
  constructor(enc) { this.encoding = (enc || 'utf8').toLowerCase().replace('-', ''); this._rest = Buffer.alloc(0); }
  write(buf) {
    if (typeof buf === 'string') return buf;
    let b = Buffer.concat([this._rest, Buffer.from(buf)]);
    if (this.encoding !== 'utf8') { this._rest = Buffer.alloc(0); return b.toString(this.encoding); }
    let cut = b.length;
    for (let i = Math.max(0, b.length - 3); i < b.length; i++) {
      const c = b[i];
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      if (need > 1 && i + need > b.length) { cut = i; break; }
    }
    this._rest = b.slice(cut);
    return b.slice(0, cut).toString('utf8');
  }
  end(buf) {
    let s = buf ? this.write(buf) : '';
    if (this._rest.length) { s += this._rest.toString(this.encoding === 'utf8' ? 'utf8' : this.encoding); this._rest = Buffer.alloc(0); }
    return s;
  }
}
module.exports = { StringDecoder: StringDecoder };
