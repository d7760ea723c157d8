//go:build wasip1

// Package wasiproc lets a Go guest built as a WASI reactor
// (-buildmode=c-shared) start a run from a snapshot of itself
// (sandbox.Snapshot): [Refresh] replaces the process state Go's start
// read from WASI, which in such a run is the initialisation's, with the
// run's own.
//
// Go keeps that state in unexported variables of packages runtime and
// syscall, which this package reaches by name (go:linkname, which needs
// -ldflags=-checklinkname=0: interp's build of the guests passes it).
// Their layouts are Go's own of the toolchain that builds the guest; a
// test (TestSnapshotLikeFresh in package scripts) runs the shell from a
// snapshot and fresh and compares what a script sees, so a toolchain
// that changes them fails there rather than in a user's run.
package wasiproc

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"unsafe"
)

// Refresh replaces what Go's initialisation read from WASI (in a run
// from a snapshot, the initialisation's) with this run's: the arguments
// (os.Args), the environment, the preopened directories and the working
// directory (package syscall's), and the runtime's random seed. A run
// from _start needs none of it, and it changes nothing there.
func Refresh() error {
	args, err := wasiStrings(argsSizesGet, argsGet)
	if err != nil {
		return err
	}
	env, err := wasiStrings(environSizesGet, environGet)
	if err != nil {
		return err
	}
	os.Args = args
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			_ = os.Setenv(k, v)
		}
	}
	if err := rescanPreopens(); err != nil {
		return err
	}
	if err := reseedRuntime(); err != nil {
		return err
	}
	// As package syscall's init does.
	if pwd := os.Getenv("PWD"); pwd != "" {
		syscallCwd = joinPath("/", pwd)
	} else if len(syscallPreopens) > 0 {
		syscallCwd = syscallPreopens[0].name
	}
	return nil
}

// wasiStrings reads a WASI string list (args or environ): NUL-terminated
// strings in one buffer.
func wasiStrings(sizes func(count, size unsafe.Pointer) uint32, get func(ptrs, buf unsafe.Pointer) uint32) ([]string, error) {
	var count, size uint32
	if errno := sizes(unsafe.Pointer(&count), unsafe.Pointer(&size)); errno != 0 {
		return nil, errors.New("wasi: reading sizes failed")
	}
	if count == 0 {
		return nil, nil
	}
	ptrs := make([]uint32, count)
	buf := make([]byte, size)
	if errno := get(unsafe.Pointer(&ptrs[0]), unsafe.Pointer(&buf[0])); errno != 0 {
		return nil, errors.New("wasi: reading strings failed")
	}
	out := make([]string, 0, count)
	for s := range strings.SplitSeq(strings.TrimSuffix(string(buf), "\x00"), "\x00") {
		out = append(out, s)
	}
	if len(out) != int(count) {
		return nil, errors.New("wasi: malformed string list")
	}
	return out, nil
}

// rescanPreopens lists the preopened directories as package syscall's
// init does, into its table.
func rescanPreopens() error {
	var found []opendir
	name := make([]byte, 256)
	for fd := int32(3); ; fd++ {
		var st prestat
		errno := fdPrestatGet(fd, unsafe.Pointer(&st))
		if errno == errnoBadf {
			break
		}
		if errno == errnoNotdir || st.typ != 0 {
			continue
		}
		if errno != 0 {
			return errors.New("wasi: fd_prestat_get failed")
		}
		if int(st.nameLen) > len(name) {
			name = make([]byte, st.nameLen)
		}
		if st.nameLen == 0 {
			continue
		}
		if fdPrestatDirName(fd, unsafe.Pointer(&name[0]), st.nameLen) != 0 {
			return errors.New("wasi: fd_prestat_dir_name failed")
		}
		found = append(found, opendir{fd: fd, name: string(name[:st.nameLen])})
	}
	syscallPreopens = found
	return nil
}

// joinPath is package syscall's: dir and file joined and cleaned.
func joinPath(dir, file string) string {
	if file == "" {
		return dir
	}
	if file[0] == '/' {
		return cleanPath(file)
	}
	return cleanPath(dir + "/" + file)
}

func cleanPath(p string) string {
	parts := []string{}
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, s)
		}
	}
	return "/" + strings.Join(parts, "/")
}

const (
	errnoBadf   = 8
	errnoNotdir = 54
)

type prestat struct {
	typ     uint8
	_       [3]byte
	nameLen uint32
}

// opendir is package syscall's record of a preopened directory.
type opendir struct {
	fd   int32
	name string
}

// Package syscall's preopened directories and working directory, read
// by its init from WASI (fs_wasip1.go); linked by name, which needs
// -ldflags=-checklinkname=0 (interp's build of the shell passes it).
//
//go:linkname syscallPreopens syscall.preopens
var syscallPreopens []opendir

//go:linkname syscallCwd syscall.cwd
var syscallCwd string

//go:wasmimport wasi_snapshot_preview1 args_sizes_get
func argsSizesGet(count, size unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 args_get
func argsGet(ptrs, buf unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 environ_sizes_get
func environSizesGet(count, size unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 environ_get
func environGet(ptrs, buf unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_get
func fdPrestatGet(fd int32, st unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_dir_name
func fdPrestatDirName(fd int32, buf unsafe.Pointer, n uint32) uint32

// reseedRuntime gives the runtime's random generator, which a snapshot
// holds as the initialisation left it, a fresh seed from WASI, as Go's
// start does: map iteration order, $RANDOM (math/rand/v2's global
// generator) and temporary names then differ from run to run. The global
// generator is reseeded, then the one M of GOARCH=wasm draws its own
// seed from it (runtime.mrandinit).
func reseedRuntime() error {
	var b [32]byte
	if _, err := crand.Read(b[:]); err != nil {
		return err
	}
	if !runtimeGlobalRand.init {
		return errors.New("runtime.globalRand is not as expected")
	}
	var seed [4]uint64
	for i := range seed {
		seed[i] = binary.LittleEndian.Uint64(b[i*8:])
	}
	chacha8Init64(&runtimeGlobalRand.state, seed)
	runtimeMrandinit(unsafe.Pointer(&runtimeM0))
	return nil
}

// chacha8State is internal/chacha8rand.State's layout.
type chacha8State struct {
	buf     [32]uint64
	seed    [4]uint64
	i, n, c uint32
}

//go:linkname runtimeGlobalRand runtime.globalRand
var runtimeGlobalRand struct {
	lock  uintptr // runtime.mutex without lock ranking
	seed  [32]byte
	state chacha8State
	init  bool
}

//go:linkname runtimeM0 runtime.m0
var runtimeM0 [1]byte

//go:linkname runtimeMrandinit runtime.mrandinit
func runtimeMrandinit(mp unsafe.Pointer)

//go:linkname chacha8Init64 internal/chacha8rand.(*State).Init64
func chacha8Init64(s *chacha8State, seed [4]uint64)
