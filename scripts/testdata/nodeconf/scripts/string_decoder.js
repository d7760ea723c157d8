const { StringDecoder } = require('string_decoder');
const d = new StringDecoder('utf8');
const euro = Buffer.from('€');
console.log(JSON.stringify(d.write(euro.slice(0, 1))), JSON.stringify(d.write(euro.slice(1))), JSON.stringify(d.end()));
console.log(new TextDecoder().decode(new TextEncoder().encode('héllo')), btoa('hi'), atob('aGk='));
console.log(structuredClone({ a: [1, { b: 2 }] }).a[1].b);
