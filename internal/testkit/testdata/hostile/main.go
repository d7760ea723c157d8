// Command hostile is the test guest for packages sandbox and scripts: each mode is one
// thing an untrusted skill script might try. The tests build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -o hostile.wasm .
//
// and run it as "hostile MODE [ARGS...]". Modes that probe the sandbox
// print what happened ("error: ..." on failure) so the host can check the
// message the guest saw.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hostile MODE [ARGS...]")
		os.Exit(2)
	}
	mode, args := os.Args[1], os.Args[2:]
	switch mode {
	case "echo": // args one a line, then stdin copied to stdout
		for _, a := range args {
			fmt.Printf("arg: %q\n", a)
		}
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			fail(err)
		}
	case "exit":
		code, _ := strconv.Atoi(args[0])
		fmt.Println("exiting with", code)
		os.Exit(code)
	case "read": // read FILE
		b, err := os.ReadFile(args[0])
		if err != nil {
			fail(err)
		}
		os.Stdout.Write(b)
	case "rawread": // rawread FD PATH: path_open PATH under preopen FD as given, no cleaning
		fd, _ := strconv.Atoi(args[0])
		b, errno := rawRead(int32(fd), args[1])
		if errno != 0 {
			fail(fmt.Errorf("path_open %q: %w", args[1], errno))
		}
		os.Stdout.Write(b)
	case "write": // write FILE TEXT
		if err := os.WriteFile(args[0], []byte(args[1]), 0o644); err != nil {
			fail(err)
		}
		fmt.Println("wrote", args[0])
	case "fill": // fill FILE N: write N bytes to FILE in 64 KiB chunks
		n, _ := strconv.Atoi(args[1])
		f, err := os.Create(args[0])
		if err != nil {
			fail(err)
		}
		chunk := make([]byte, 64<<10)
		written := 0
		for written < n {
			m, err := f.Write(chunk[:min(len(chunk), n-written)])
			written += m
			if err != nil {
				fmt.Printf("wrote %d, then error: %v\n", written, err)
				os.Exit(1)
			}
		}
		fmt.Println("wrote", written)
	case "mkdir": // mkdir DIR
		if err := os.Mkdir(args[0], 0o755); err != nil {
			fail(err)
		}
		fmt.Println("made", args[0])
	case "stat", "lstat": // stat|lstat PATH: the file's mode
		st := os.Stat
		if mode == "lstat" {
			st = os.Lstat
		}
		fi, err := st(args[0])
		if err != nil {
			fail(err)
		}
		fmt.Println(fi.Mode())
	case "readlink": // readlink PATH
		target, err := os.Readlink(args[0])
		if err != nil {
			fail(err)
		}
		fmt.Println(target)
	case "rename": // rename FROM TO
		if err := os.Rename(args[0], args[1]); err != nil {
			fail(err)
		}
		fmt.Println("renamed", args[0])
	case "remove": // remove PATH: a file or an empty folder
		if err := os.Remove(args[0]); err != nil {
			fail(err)
		}
		fmt.Println("removed", args[0])
	case "ls": // ls DIR
		entries, err := os.ReadDir(args[0])
		if err != nil {
			fail(err)
		}
		for _, e := range entries {
			fmt.Println(e.Name())
		}
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	case "clock": // the time and 8 random bytes
		b := make([]byte, 8)
		rand.Read(b)
		fmt.Println(time.Now().UnixNano(), hex.EncodeToString(b))
	case "loop":
		spin()
	case "sleep": // sleep DURATION
		d, err := time.ParseDuration(args[0])
		if err != nil {
			fail(err)
		}
		time.Sleep(d)
		fmt.Println("slept", d)
	case "stdin": // read all of stdin, report its size
		n, err := io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		if err != nil {
			fail(err)
		}
		fmt.Println("read", n, "bytes")
	case "membomb": // allocate and touch 1 MiB blocks until the runtime dies
		var keep [][]byte
		for i := 0; ; i++ {
			b := make([]byte, 1<<20)
			for j := 0; j < len(b); j += 4096 {
				b[j] = byte(i)
			}
			keep = append(keep, b)
			if os.Getenv("VERBOSE") != "" {
				fmt.Fprintln(os.Stderr, "allocated", i+1, "MiB")
			}
		}
	case "plant": // plant N: fill N MiB of fresh memory with 0xA5 (a secret a later run should never see)
		n, _ := strconv.Atoi(args[0])
		var keep [][]byte
		for range n {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = 0xA5
			}
			keep = append(keep, b)
		}
		fmt.Println("planted", len(keep), "MiB")
	case "snoop": // snoop N: take N MiB of fresh memory and count the bytes that are not zero
		n, _ := strconv.Atoi(args[0])
		seen := 0
		var keep [][]byte // kept, so that every block is fresh memory
		for range n {
			b := make([]byte, 1<<20) // the Go runtime trusts memory.grow's pages to be zero
			for _, c := range b {
				if c != 0 {
					seen++
				}
			}
			keep = append(keep, b)
		}
		fmt.Println("nonzero", seen, "in", len(keep), "MiB")
	case "flood": // flood N: write N bytes to stdout, ignoring errors
		n, _ := strconv.Atoi(args[0])
		chunk := []byte(strings.Repeat("x", 63) + "\n")
		chunk = []byte(strings.Repeat(string(chunk), 1024)) // 64 KiB
		for written := 0; written < n; {
			c := chunk[:min(len(chunk), n-written)]
			os.Stdout.Write(c)
			written += len(c)
		}
	case "recurse":
		fmt.Println(recurse(0))
	case "openfiles": // openfiles N FILE [hold]: open FILE N times, keeping every file open (with hold: until stdin ends)
		n, _ := strconv.Atoi(args[0])
		var files []*os.File
		for len(files) < n {
			f, err := os.Open(args[1])
			if err != nil {
				fmt.Printf("opened %d, then error: %v\n", len(files), err)
				os.Exit(1)
			}
			files = append(files, f)
		}
		fmt.Printf("opened %d\n", len(files))
		if len(args) > 2 && args[2] == "hold" {
			_, _ = io.Copy(io.Discard, os.Stdin)
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
}

// pathOpen is WASI's path_open, called directly: Go's os package cleans
// paths lexically before they reach the host, so "a/../../b" never would.
//
//go:wasmimport wasi_snapshot_preview1 path_open
func pathOpen(dirFD int32, lookupFlags uint32, path unsafe.Pointer, pathLen uint32, oflags uint32,
	rightsBase, rightsInheriting uint64, fdFlags uint32, newFD unsafe.Pointer) uint32

// rawRead opens path under the preopened directory dirFD exactly as given
// and reads it.
func rawRead(dirFD int32, path string) ([]byte, syscall.Errno) {
	p := []byte(path)
	var fd int32
	const rightsFdRead = 1 << 1
	if errno := pathOpen(dirFD, 1 /* follow symlinks */, unsafe.Pointer(&p[0]), uint32(len(p)), 0,
		rightsFdRead, 0, 0, unsafe.Pointer(&fd)); errno != 0 {
		return nil, syscall.Errno(errno)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		fail(err)
	}
	return b, 0
}

func fail(err error) {
	fmt.Println("error:", err)
	os.Exit(1)
}

var sink int

//go:noinline
func spin() {
	for i := 0; ; i++ {
		sink += i
	}
}

// recurse never returns: each frame keeps a little stack alive.
//
//go:noinline
func recurse(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	return recurse(n+1) + int(pad[(n+1)%64])
}
