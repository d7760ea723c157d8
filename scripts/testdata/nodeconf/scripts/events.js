const EventEmitter = require('events');
const { once } = require('node:events');
class Bus extends EventEmitter {}
const bus = new Bus();
bus.on('msg', (a, b) => console.log('on', a, b));
bus.once('msg', (a) => console.log('once', a));
console.log(bus.emit('msg', 1, 2), bus.listenerCount('msg'));
bus.emit('msg', 3, 4);
const f = () => console.log('never');
bus.on('x', f);
bus.off('x', f);
console.log(bus.emit('x'), bus.eventNames().join(','));
try { bus.emit('error', new Error('boom')); } catch (e) { console.log('thrown', e.message); }
bus.prependListener('msg', () => console.log('first'));
bus.emit('msg', 5, 6);
once(bus, 'ready').then(([v]) => console.log('ready', v));
setTimeout(() => bus.emit('ready', 42), 5);
console.log(EventEmitter.defaultMaxListeners, bus.getMaxListeners());
