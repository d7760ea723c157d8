// Package wasmopt rewrites WebAssembly modules skillrun builds so that
// they start faster, without changing what they do.
package wasmopt

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tetratelabs/wabin/binary"
	"github.com/tetratelabs/wabin/leb128"
	"github.com/tetratelabs/wabin/wasm"
)

// MaxGap is the longest run of zero bytes MergeData writes to join two
// data segments: longer runs stay gaps (the memory is zero there anyway).
const MaxGap = 4096

// A Merge says what MergeData did.
type Merge struct {
	// Before and After are the counts of data segments.
	Before, After int
	// Bytes is the size of the data segments after the merge.
	Bytes int
}

// MergeData returns the module with its data segments merged into as
// few as MaxGap allows. Go's linker writes a module's data as up to
// 100,000 segments, split at every run of zeros; instantiating it then
// evaluates as many offset expressions and copies as many pieces, a
// third of a warm Go guest's start. The merged segments write the same
// bytes to the same memory (a gap's zeros are what a new memory holds),
// so the module behaves the same.
//
// A module is returned unchanged (with a zero Merge) when merging could
// change it: a passive segment, an offset that is not an i32.const, a
// segment of another memory, or a data count section (which code that
// drops or copies segments by index needs).
func MergeData(module []byte) ([]byte, Merge, error) {
	m, err := binary.DecodeModule(module, wasm.CoreFeaturesV2)
	if err != nil {
		return nil, Merge{}, fmt.Errorf("decoding the module: %w", err)
	}
	if m.DataCountSection != nil || len(m.DataSection) < 2 {
		return module, Merge{}, nil
	}
	type piece struct{ off, end uint32 }
	pieces := make([]piece, 0, len(m.DataSection))
	var end uint32
	for _, d := range m.DataSection {
		off, ok := constOffset(d)
		if !ok {
			return module, Merge{}, nil
		}
		e := uint64(off) + uint64(len(d.Init))
		if e > 1<<32-1 {
			return nil, Merge{}, errors.New("a data segment ends past 4 GiB")
		}
		pieces = append(pieces, piece{off, uint32(e)})
		end = max(end, uint32(e))
	}
	// The memory's first bytes as instantiation leaves them: segments
	// applied in order, later ones over earlier ones.
	byOffset := func(a, b piece) int { return cmp.Compare(a.off, b.off) }
	start := slices.MinFunc(pieces, byOffset).off
	image := make([]byte, end-start)
	for i, d := range m.DataSection {
		copy(image[pieces[i].off-start:], d.Init)
	}
	slices.SortFunc(pieces, byOffset)
	var merged []*wasm.DataSegment
	run := pieces[0]
	flush := func() {
		merged = append(merged, &wasm.DataSegment{
			OffsetExpression: &wasm.ConstantExpression{Opcode: wasm.OpcodeI32Const, Data: leb128.EncodeInt32(int32(run.off))},
			Init:             image[run.off-start : run.end-start],
		})
	}
	total := 0
	for _, p := range pieces[1:] {
		if p.off <= run.end || p.off-run.end <= MaxGap {
			run.end = max(run.end, p.end)
			continue
		}
		flush()
		total += int(run.end - run.off)
		run = p
	}
	flush()
	total += int(run.end - run.off)
	before := len(m.DataSection)
	m.DataSection = merged
	return binary.EncodeModule(m), Merge{Before: before, After: len(merged), Bytes: total}, nil
}

// constOffset is an active segment's offset in memory 0 when it is an
// i32.const.
func constOffset(d *wasm.DataSegment) (uint32, bool) {
	e := d.OffsetExpression
	if e == nil || e.Opcode != wasm.OpcodeI32Const {
		return 0, false
	}
	v, _, err := leb128.DecodeInt32(bytes.NewReader(e.Data))
	if err != nil {
		return 0, false
	}
	return uint32(v), true
}

// MergeDataFile rewrites the module file at path with [MergeData].
func MergeDataFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	merged, _, err := MergeData(data)
	if err != nil {
		return fmt.Errorf("merging the data segments of %s: %w", filepath.Base(path), err)
	}
	return os.WriteFile(path, merged, 0o644)
}
