package host

import (
	"context"
	"sync/atomic"
)

// Tier names of [RecordTiers]: where a call's scripts ran.
const (
	tierWasm   = "wasm"   // in WebAssembly, under wazero
	tierNative = "native" // as confined host processes (the native tier)
)

type tierKey struct{}

// tierRecord is what the runs under one context used.
type tierRecord struct{ wasm, native atomic.Bool }

// RecordTiers returns ctx in which every run started records its tier,
// and a function naming the tiers used so far: "wasm", "native",
// "wasm+native" (a sandboxed shell that started a trusted skill's script
// natively) or "" (nothing ran: a refusal, a host tool). A session
// writes it into each tool result of its transcript, so a reader sees
// which calls ran host processes.
func RecordTiers(ctx context.Context) (context.Context, func() string) {
	rec := &tierRecord{}
	return context.WithValue(ctx, tierKey{}, rec), func() string {
		switch w, n := rec.wasm.Load(), rec.native.Load(); {
		case w && n:
			return tierWasm + "+" + tierNative
		case n:
			return tierNative
		case w:
			return tierWasm
		}
		return ""
	}
}

// NoteTier records in ctx's record ([RecordTiers]), if any, that a
// run of a tier started: package scripts calls it as each run starts.
func NoteTier(ctx context.Context, native bool) {
	rec, ok := ctx.Value(tierKey{}).(*tierRecord)
	if !ok {
		return
	}
	if native {
		rec.native.Store(true)
	} else {
		rec.wasm.Store(true)
	}
}
