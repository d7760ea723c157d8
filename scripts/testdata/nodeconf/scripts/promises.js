async function wait(ms, v) { return new Promise((r) => setTimeout(() => r(v), ms)); }
(async () => {
  console.log(await Promise.all([wait(3, 'a'), wait(1, 'b')]));
  console.log(await Promise.race([wait(10, 'slow'), wait(1, 'fast')]));
  const settled = await Promise.allSettled([Promise.reject(new Error('no')), Promise.resolve(1)]);
  console.log(settled.map((s) => s.status).join(','));
  try { await Promise.any([Promise.reject(new Error('x'))]); } catch (e) { console.log(e.constructor.name); }
  for await (const v of (async function* () { yield 1; yield 2; })()) console.log('gen', v);
})();
