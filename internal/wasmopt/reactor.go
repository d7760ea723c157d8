package wasmopt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wabin/binary"
	"github.com/tetratelabs/wabin/leb128"
	"github.com/tetratelabs/wabin/wasm"
)

// GoReactor turns a Go WASI reactor (go build -buildmode=c-shared,
// GOOS=wasip1) whose run function is the export entry, of type () ->
// i32, into a module that both starts as a command and can be
// snapshotted (sandbox.Snapshot):
//
//   - every mutable global is exported ([ExportGlobals]): Go keeps its
//     stack pointer and current goroutine there;
//   - a _start is added that calls _initialize, then entry, and exits
//     with entry's result (proc_exit), so a run that does not start from
//     a snapshot runs the module as the command it was.
//
// A module without _initialize or entry, with a _start already, or that
// does not import wasi_snapshot_preview1.proc_exit is an error.
func GoReactor(module []byte, entry string) ([]byte, error) {
	module, _, err := ExportGlobals(module)
	if err != nil {
		return nil, err
	}
	m, err := binary.DecodeModule(module, wasm.CoreFeaturesV2)
	if err != nil {
		return nil, fmt.Errorf("decoding the module: %w", err)
	}
	funcType := func(idx uint32) *wasm.FunctionType {
		imported := uint32(0)
		for _, im := range m.ImportSection {
			if im.Type == wasm.ExternTypeFunc {
				if imported == idx {
					return m.TypeSection[im.DescFunc]
				}
				imported++
			}
		}
		if i := idx - imported; i < uint32(len(m.FunctionSection)) {
			return m.TypeSection[m.FunctionSection[i]]
		}
		return nil
	}
	exported := func(name string) (uint32, *wasm.FunctionType, error) {
		for _, e := range m.ExportSection {
			if e.Name == name {
				if e.Type != wasm.ExternTypeFunc {
					return 0, nil, fmt.Errorf("the module's export %q is not a function", name)
				}
				return e.Index, funcType(e.Index), nil
			}
		}
		return 0, nil, fmt.Errorf("the module exports no %q (build it with -buildmode=c-shared and //go:wasmexport %s)", name, name)
	}
	if _, _, err := exported("_start"); err == nil {
		return nil, errors.New("the module already has a _start: it is a command, not a reactor")
	}
	initIdx, initType, err := exported("_initialize")
	if err != nil {
		return nil, err
	}
	entryIdx, entryType, err := exported(entry)
	if err != nil {
		return nil, err
	}
	i32 := []wasm.ValueType{wasm.ValueTypeI32}
	switch {
	case initType == nil || !initType.EqualsSignature(nil, nil):
		return nil, errors.New("the module's _initialize is not () -> ()")
	case entryType == nil || !entryType.EqualsSignature(nil, i32):
		return nil, fmt.Errorf("the module's %q is not () -> i32", entry)
	}
	exitIdx, found := uint32(0), false
	var fn uint32
	for _, im := range m.ImportSection {
		if im.Type != wasm.ExternTypeFunc {
			continue
		}
		if im.Module == "wasi_snapshot_preview1" && im.Name == "proc_exit" && m.TypeSection[im.DescFunc].EqualsSignature(i32, nil) {
			exitIdx, found = fn, true
		}
		fn++
	}
	if !found {
		return nil, errors.New("the module does not import wasi_snapshot_preview1.proc_exit")
	}
	// The type () -> (), reused if the module has it.
	typeIdx := uint32(len(m.TypeSection))
	for i, t := range m.TypeSection {
		if t.EqualsSignature(nil, nil) {
			typeIdx = uint32(i)
			break
		}
	}
	if typeIdx == uint32(len(m.TypeSection)) {
		m.TypeSection = append(m.TypeSection, &wasm.FunctionType{})
	}
	body := []byte{wasm.OpcodeCall}
	body = append(body, leb128.EncodeUint32(initIdx)...)
	body = append(body, wasm.OpcodeCall)
	body = append(body, leb128.EncodeUint32(entryIdx)...)
	body = append(body, wasm.OpcodeCall)
	body = append(body, leb128.EncodeUint32(exitIdx)...)
	body = append(body, wasm.OpcodeEnd)
	startIdx := fn + uint32(len(m.FunctionSection))
	m.FunctionSection = append(m.FunctionSection, typeIdx)
	m.CodeSection = append(m.CodeSection, &wasm.Code{Body: body})
	m.ExportSection = append(m.ExportSection, &wasm.Export{Type: wasm.ExternTypeFunc, Name: "_start", Index: startIdx})
	return binary.EncodeModule(m), nil
}

// GoReactorFile rewrites the module file at path with [GoReactor].
func GoReactorFile(path, entry string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := GoReactor(data, entry)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return os.WriteFile(path, out, 0o644)
}
