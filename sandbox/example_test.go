package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
)

// A script is compiled once and run as often as needed; each run gets
// only what its RunConfig names. Real scripts are built from Go, C or Rust;
// the modules of these examples are a few hand-assembled bytes each (see
// the end of this file).
func Example() {
	ctx := context.Background()

	// NoCache keeps the example from writing to the user's cache directory;
	// real programs keep the default, a compilation cache on disk.
	r, err := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close(ctx)

	m, err := r.Compile(ctx, testkit.HelloWasm)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close(ctx)

	res, err := m.Run(ctx, &sandbox.RunConfig{
		Name:    "hello:main",
		Stdout:  os.Stdout,
		Timeout: 5 * time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("exit code", res.ExitCode)
	// Output:
	// hello, world
	// exit code 0
}

// The exit code of a module is its own answer, not an error.
func ExampleCompiledModule_Run() {
	ctx := context.Background()
	r, _ := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	defer r.Close(ctx)
	m, _ := r.Compile(ctx, exit3Wasm)

	res, err := m.Run(ctx, &sandbox.RunConfig{Name: "exit3"})
	fmt.Println(res.ExitCode, err)
	// Output: 3 <nil>
}

// Every mount and every file access in a mount can be audited.
func ExampleCompiledModule_Run_audit() {
	ctx := context.Background()
	r, _ := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	defer r.Close(ctx)
	m, _ := r.Compile(ctx, testkit.HelloWasm)

	workspace, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(workspace)
	_, err := m.Run(ctx, &sandbox.RunConfig{
		Mounts: []sandbox.Mount{{HostDir: workspace, GuestPath: "/workspace", Writable: true}},
		Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
			kind, value, decision, reason := e.Kind, e.Value, string(e.Decision), e.Reason

			fmt.Println(kind, value, decision, reason)
		}),
	})
	fmt.Println(err)
	// Output:
	// mount /workspace allow read-write
	// <nil>
}

// A module that never stops is stopped by its timeout, and the error says
// which script and which limit.
func ExampleCompiledModule_Run_timeout() {
	ctx := context.Background()
	r, _ := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	defer r.Close(ctx)
	m, _ := r.Compile(ctx, spinWasm)

	_, err := m.Run(ctx, &sandbox.RunConfig{Name: "spin:forever", Timeout: 100 * time.Millisecond})
	fmt.Println(errors.Is(err, sandbox.ErrTimeout))
	fmt.Println(err)
	// Output:
	// true
	// spin:forever: timed out after 100ms
}

// Compile refuses what skillrun cannot run, and says why.
func ExampleRuntime_Compile() {
	ctx := context.Background()
	r, _ := sandbox.New(ctx, &sandbox.Options{NoCache: true})
	defer r.Close(ctx)

	_, err := r.Compile(ctx, []byte("#!/bin/sh\n"))
	fmt.Println(err)

	_, err = r.Compile(ctx, evilWasm)
	fmt.Println(err)
	// Output:
	// not a valid Wasm module: invalid magic number
	// the module imports function env.evil, which skillrun does not provide; only functions of wasi_snapshot_preview1 (WASI preview 1) are available
}

// The example modules, in the WebAssembly binary format, with their text
// form.

// exit3Wasm exits with code 3.
//
//	(module
//	  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
//	  (func (export "_start") (call $proc_exit (i32.const 3))))
var exit3Wasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
	0x01, 0x08, 0x02, 0x60, 0x01, 0x7f, 0x00, 0x60, 0x00, 0x00, // types
	0x02, 0x24, 0x01, 0x16, 0x77, 0x61, 0x73, 0x69, 0x5f, 0x73, 0x6e, 0x61, 0x70, 0x73, // import
	0x68, 0x6f, 0x74, 0x5f, 0x70, 0x72, 0x65, 0x76, 0x69, 0x65, 0x77, 0x31,
	0x09, 0x70, 0x72, 0x6f, 0x63, 0x5f, 0x65, 0x78, 0x69, 0x74, 0x00, 0x00,
	0x03, 0x02, 0x01, 0x01, // functions
	0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x01, // exports
	0x0a, 0x08, 0x01, 0x06, 0x00, 0x41, 0x03, 0x10, 0x00, 0x0b, // code
}

// spinWasm loops forever.
//
//	(module (func (export "_start") (loop br 0)))
var spinWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // types
	0x03, 0x02, 0x01, 0x00, // functions
	0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x00, // exports
	0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, // code
}

// evilWasm imports a function skillrun does not provide.
//
//	(module
//	  (import "env" "evil" (func $evil))
//	  (func (export "_start") (call $evil)))
var evilWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // types
	0x02, 0x0c, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x04, 0x65, 0x76, 0x69, 0x6c, 0x00, 0x00, // import
	0x03, 0x02, 0x01, 0x00, // functions
	0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x01, // exports
	0x0a, 0x06, 0x01, 0x04, 0x00, 0x10, 0x00, 0x0b, // code
}
