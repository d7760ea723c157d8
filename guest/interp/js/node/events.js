'use strict';
// Node's events module: EventEmitter and events.once, as Node documents
// them (written for skillrun's JavaScript guest; no Node source).
function EventEmitter() {
  this._events = Object.create(null);
  this._maxListeners = undefined;
}
EventEmitter.prototype._events = undefined;
EventEmitter.defaultMaxListeners = 10;
function listenersOf(em, name) {
  if (!em._events) em._events = Object.create(null);
  return em._events[name] || (em._events[name] = []);
}
EventEmitter.prototype.on = EventEmitter.prototype.addListener = function (name, fn) {
  if (typeof fn !== 'function') throw new TypeError('The "listener" argument must be of type function');
  if (this._events && this._events.newListener) this.emit('newListener', name, fn);
  listenersOf(this, name).push({ fn: fn, once: false });
  return this;
};
EventEmitter.prototype.prependListener = function (name, fn) {
  listenersOf(this, name).unshift({ fn: fn, once: false });
  return this;
};
EventEmitter.prototype.once = function (name, fn) {
  if (typeof fn !== 'function') throw new TypeError('The "listener" argument must be of type function');
  listenersOf(this, name).push({ fn: fn, once: true });
  return this;
};
EventEmitter.prototype.prependOnceListener = function (name, fn) {
  listenersOf(this, name).unshift({ fn: fn, once: true });
  return this;
};
EventEmitter.prototype.off = EventEmitter.prototype.removeListener = function (name, fn) {
  const list = this._events && this._events[name];
  if (!list) return this;
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i].fn === fn) {
      list.splice(i, 1);
      if (this._events.removeListener) this.emit('removeListener', name, fn);
      break;
    }
  }
  if (list.length === 0) delete this._events[name];
  return this;
};
EventEmitter.prototype.removeAllListeners = function (name) {
  if (!this._events) return this;
  if (name === undefined) this._events = Object.create(null);
  else delete this._events[name];
  return this;
};
EventEmitter.prototype.emit = function (name) {
  const list = this._events && this._events[name];
  const args = Array.prototype.slice.call(arguments, 1);
  if (!list || list.length === 0) {
    if (name === 'error') {
      const err = args[0];
      if (err instanceof Error) throw err;
      const e = new Error('Unhandled error.' + (err === undefined ? '' : ' (' + err + ')'));
      e.code = 'ERR_UNHANDLED_ERROR';
      e.context = err;
      throw e;
    }
    return false;
  }
  for (const l of list.slice()) {
    if (l.once) this.removeListener(name, l.fn);
    l.fn.apply(this, args);
  }
  return true;
};
EventEmitter.prototype.listeners = function (name) {
  return ((this._events && this._events[name]) || []).map(function (l) { return l.fn; });
};
EventEmitter.prototype.rawListeners = EventEmitter.prototype.listeners;
EventEmitter.prototype.listenerCount = function (name) {
  return ((this._events && this._events[name]) || []).length;
};
EventEmitter.prototype.eventNames = function () {
  return this._events ? Object.keys(this._events) : [];
};
EventEmitter.prototype.setMaxListeners = function (n) { this._maxListeners = n; return this; };
EventEmitter.prototype.getMaxListeners = function () {
  return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners : this._maxListeners;
};
EventEmitter.once = function (em, name) {
  return new Promise(function (resolve, reject) {
    const onError = function (err) { em.removeListener(name, onEvent); reject(err); };
    const onEvent = function () {
      if (name !== 'error') em.removeListener('error', onError);
      resolve(Array.prototype.slice.call(arguments));
    };
    em.once(name, onEvent);
    if (name !== 'error') em.once('error', onError);
  });
};
EventEmitter.listenerCount = function (em, name) { return em.listenerCount(name); };
EventEmitter.EventEmitter = EventEmitter;
module.exports = EventEmitter;
