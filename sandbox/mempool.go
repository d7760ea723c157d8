package sandbox

import (
	"sync"
)

// A memPool keeps the linear memories of runs that ended, zeroed, for the
// next runs of the Runtime. A Go guest or a CPython snapshot takes tens of
// MB of memory at once; allocated anew, each page of it is a fault the
// kernel zeroes, 40–50 ms for CPython's, and the garbage collector runs
// more often for the Runtime's many large allocations. A memory is put
// back only when its run has ended (the module closed and its call
// returned, [CompiledModule.runWith]): no guest code can reach it any more.
type memPool struct {
	mu    sync.Mutex
	free  [][]byte // zeroed, capacity in use
	bytes uint64   // their capacity
	max   uint64   // the most it keeps, in bytes
}

// poolMaxBuffers and poolMaxBytes bound what a Runtime's pool keeps: an
// idle process holds at most that much beyond its compiled modules.
const (
	poolMaxBuffers = 4
	poolMaxBytes   = 256 << 20
)

// get returns a zeroed memory of length size with room for capacity
// bytes (the smallest that fits), or nil. Its capacity may be larger:
// the caller cuts it to what it asked for (linearMemory.pooled), since a
// run's memory counts against its limit by its capacity, which the runs
// it starts share.
func (p *memPool) get(size, capacity uint64) []byte {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	best := -1
	for i, b := range p.free {
		if uint64(cap(b)) >= capacity && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	b := p.free[best]
	p.free = append(p.free[:best], p.free[best+1:]...)
	p.bytes -= uint64(cap(b))
	return b[:size]
}

// put zeroes the used part of b (its length: a memory never shrinks, and
// past it nothing was written) in the background, and keeps it if there
// is room.
func (p *memPool) put(b []byte) {
	if p == nil || b == nil || uint64(cap(b)) > p.max {
		return
	}
	go func() {
		clear(b)
		p.mu.Lock()
		defer p.mu.Unlock()
		for len(p.free) >= poolMaxBuffers || p.bytes+uint64(cap(b)) > p.max {
			if len(p.free) == 0 {
				return
			}
			p.bytes -= uint64(cap(p.free[0]))
			p.free = p.free[1:] // the oldest goes to the garbage collector
		}
		p.free = append(p.free, b[:0])
		p.bytes += uint64(cap(b))
	}()
}
