package wasmopt

import (
	"fmt"
	"strconv"

	"github.com/tetratelabs/wabin/binary"
	"github.com/tetratelabs/wabin/wasm"
)

// GlobalExportPrefix starts the names ExportGlobals gives the globals it
// exports, followed by the global's index.
const GlobalExportPrefix = "skillrun.global."

// ExportGlobals returns the module with every mutable global it defines
// and does not export exported, as GlobalExportPrefix and the global's
// index, and how many it exported. A snapshot (sandbox.Snapshot) keeps
// and restores an instance's exported mutable globals only: wazero reads
// and sets no others. Go's linker keeps the stack pointer and the
// current goroutine in such globals, so a Go module can be snapshotted
// only once they are exported. Exporting a global changes nothing the
// module's code does.
func ExportGlobals(module []byte) ([]byte, int, error) {
	m, err := binary.DecodeModule(module, wasm.CoreFeaturesV2)
	if err != nil {
		return nil, 0, fmt.Errorf("decoding the module: %w", err)
	}
	imported := uint32(0)
	for _, im := range m.ImportSection {
		if im.Type == wasm.ExternTypeGlobal {
			imported++
		}
	}
	exported := map[uint32]bool{}
	names := map[string]bool{}
	for _, e := range m.ExportSection {
		names[e.Name] = true
		if e.Type == wasm.ExternTypeGlobal {
			exported[e.Index] = true
		}
	}
	n := 0
	for i, g := range m.GlobalSection {
		idx := imported + uint32(i)
		if !g.Type.Mutable || exported[idx] {
			continue
		}
		name := GlobalExportPrefix + strconv.FormatUint(uint64(idx), 10)
		if names[name] {
			return nil, 0, fmt.Errorf("the module already exports something named %q", name)
		}
		m.ExportSection = append(m.ExportSection, &wasm.Export{Type: wasm.ExternTypeGlobal, Name: name, Index: idx})
		n++
	}
	if n == 0 {
		return module, 0, nil
	}
	return binary.EncodeModule(m), n, nil
}
