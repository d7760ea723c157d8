package sandbox

import (
	"container/list"
	"context"
	"fmt"
	"sync"
)

// memo keeps the modules [Runtime.CompileOnce] compiles,
// by key, bounded by the size of their Wasm bytes (Options.MaxCompiledBytes,
// least recently used first out).
//
// Each key compiles once at a time without a memo-wide lock: the first
// caller starts the compile (a flight) and every caller, the first
// included, waits for it or for its own ctx, whichever ends first. A
// caller that gives up leaves the flight running (bounded by the
// Runtime's compile slots); its module is kept for the next caller.
type memo struct {
	max int64 // bytes of Wasm

	mu      sync.Mutex
	entries map[[32]byte]*list.Element // of *memoEntry
	lru     list.List                  // front: most recently used
	total   int64
	flights map[[32]byte]*flight
}

type memoEntry struct {
	key [32]byte
	m   *CompiledModule
}

// A flight is one compile in progress; done is closed when m or err is
// set.
type flight struct {
	done chan struct{}
	m    *CompiledModule
	err  error
}

// get returns the module under key and marks it used.
func (c *memo) get(key [32]byte) (*CompiledModule, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*memoEntry).m, true
}

// put keeps m under key and evicts the least recently used modules past
// the bound, never m itself. Evicted modules are closed when their last
// run ends.
func (c *memo) put(key [32]byte, m *CompiledModule) {
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[[32]byte]*list.Element{}
	}
	c.entries[key] = c.lru.PushFront(&memoEntry{key: key, m: m})
	c.total += int64(m.size)
	var evicted []*CompiledModule
	for c.total > c.max && c.lru.Len() > 1 {
		e := c.lru.Remove(c.lru.Back()).(*memoEntry)
		delete(c.entries, e.key)
		c.total -= int64(e.m.size)
		evicted = append(evicted, e.m)
	}
	c.mu.Unlock()
	for _, m := range evicted {
		m.evict(context.Background())
	}
}

// clear forgets every module (Runtime.Close closes them with the wazero
// runtime).
func (c *memo) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = nil
	c.lru.Init()
	c.total = 0
}

// size reports the modules kept and their Wasm bytes.
func (c *memo) size() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.total
}

// once returns the module under key, compiling it with compile if it is
// not there; see memo.
func (c *memo) once(ctx context.Context, key [32]byte, compile func() (*CompiledModule, error)) (*CompiledModule, error) {
	if m, ok := c.get(key); ok {
		return m, nil
	}
	c.mu.Lock()
	if el, ok := c.entries[key]; ok { // put between get and here
		c.mu.Unlock()
		return el.Value.(*memoEntry).m, nil
	}
	f := c.flights[key]
	if f == nil {
		f = &flight{done: make(chan struct{})}
		if c.flights == nil {
			c.flights = map[[32]byte]*flight{}
		}
		c.flights[key] = f
		go func() {
			f.m, f.err = compile()
			if f.err == nil {
				c.put(key, f.m)
			}
			c.mu.Lock()
			delete(c.flights, key)
			c.mu.Unlock()
			close(f.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.m, f.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the module to compile: %w", context.Cause(ctx))
	}
}
