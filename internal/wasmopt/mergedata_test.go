package wasmopt

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wabin/binary"
	"github.com/tetratelabs/wabin/leb128"
	"github.com/tetratelabs/wabin/wasm"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
)

// image is the memory a module's data segments leave at instantiation
// (from offset 0 to the last byte they write).
func image(t *testing.T, m *wasm.Module) []byte {
	t.Helper()
	var mem []byte
	for _, d := range m.DataSection {
		off, ok := constOffset(d)
		require.True(t, ok)
		if end := int(off) + len(d.Init); end > len(mem) {
			mem = append(mem, make([]byte, end-len(mem))...)
		}
		copy(mem[off:], d.Init)
	}
	return mem
}

// TestMergeDataGoGuest: a Go guest's tens of thousands of segments
// become a few that leave the same memory; everything else in the module
// is as it was, and the module prints what it printed.
func TestMergeDataGoGuest(t *testing.T) {
	orig := testkit.Wasm(t, "fib")
	merged, info, err := MergeData(orig)
	require.NoError(t, err)
	assert.Greater(t, info.Before, 1000, "Go writes many segments")
	assert.Less(t, info.After, 20)

	a, err := binary.DecodeModule(orig, wasm.CoreFeaturesV2)
	require.NoError(t, err)
	b, err := binary.DecodeModule(merged, wasm.CoreFeaturesV2)
	require.NoError(t, err)
	require.Len(t, b.DataSection, info.After)
	assert.True(t, bytes.Equal(image(t, a), image(t, b)), "the same initial memory")
	a.DataSection, b.DataSection = nil, nil
	assert.Equal(t, binary.EncodeModule(a), binary.EncodeModule(b), "nothing else changed")

	ctx := context.Background()
	r, err := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	require.NoError(t, err)
	defer r.Close(ctx)
	out := func(module []byte) string {
		m, err := r.Compile(ctx, module)
		require.NoError(t, err)
		defer m.Close(ctx)
		var stdout bytes.Buffer
		res, err := m.Run(ctx, &sandbox.RunConfig{Name: "fib", Args: []string{"15"}, Stdout: &stdout, Timeout: time.Minute})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode)
		return stdout.String()
	}
	want := out(orig)
	assert.NotEmpty(t, want)
	assert.Equal(t, want, out(merged))
}

// TestMergeDataOverlaps: overlapping segments keep instantiation's order
// (the later one wins); a gap longer than MaxGap stays a gap.
func TestMergeDataOverlaps(t *testing.T) {
	seg := func(off int32, data string) *wasm.DataSegment {
		return &wasm.DataSegment{OffsetExpression: &wasm.ConstantExpression{Opcode: wasm.OpcodeI32Const, Data: leb128.EncodeInt32(off)}, Init: []byte(data)}
	}
	m := &wasm.Module{
		MemorySection: &wasm.Memory{Min: 1, Max: 1, IsMaxEncoded: true},
		DataSection:   []*wasm.DataSegment{seg(100, "aaaa"), seg(102, "BB"), seg(10, "x"), seg(100+4+MaxGap+1, "far")},
	}
	merged, info, err := MergeData(binary.EncodeModule(m))
	require.NoError(t, err)
	assert.Equal(t, Merge{Before: 4, After: 2, Bytes: 94 + 3}, info)
	got, err := binary.DecodeModule(merged, wasm.CoreFeaturesV2)
	require.NoError(t, err)
	mem := image(t, got)
	assert.Equal(t, "aaBB", string(mem[100:104]))
	assert.Equal(t, "x", string(mem[10:11]))
	assert.Equal(t, "far", string(mem[100+4+MaxGap+1:]))
}

// TestMergeDataLeavesAlone: a module with a passive segment, or whose
// offsets are not constants, comes back as it was; garbage is an error.
func TestMergeDataLeavesAlone(t *testing.T) {
	m := &wasm.Module{
		MemorySection: &wasm.Memory{Min: 1},
		DataSection: []*wasm.DataSegment{
			{OffsetExpression: &wasm.ConstantExpression{Opcode: wasm.OpcodeI32Const, Data: leb128.EncodeInt32(1)}, Init: []byte("a")},
			{Init: []byte("passive")},
		},
	}
	in := binary.EncodeModule(m)
	out, info, err := MergeData(in)
	require.NoError(t, err)
	assert.Equal(t, in, out)
	assert.Zero(t, info)

	_, _, err = MergeData([]byte("not wasm"))
	assert.ErrorContains(t, err, "decoding the module")
}
