console.log('before');
Promise.reject(new Error('nobody catches this'));
setTimeout(() => console.log('not reached in node'), 50);
