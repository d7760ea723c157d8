//go:build wasip1

// Command hostfuzz is the guest of sandbox/hostfuncs_fuzz_test.go: it
// reads call records from stdin and makes each call to the skillrun host
// functions through raw imports, with the record's payload or with the
// record's raw pointer and length (anywhere, in bounds or not). It checks
// what the ABI promises the guest (docs/contracts/abi.md): every call returns a length
// from 0 to MaxPayload, take returns the length or -1, -2 or -3, and
// every response taken is a well-formed envelope with a known error code.
// A broken promise is a line starting with "BAD"; the last line is
// "done N" for N calls.
//
// A record is: function (1 byte, an index into funcs), mode (1 byte),
// pointer (4 bytes), length (4 bytes), payload length (2 bytes) and the
// payload. All integers are little-endian.
//
// It is part of the main module (no go.mod), so it can import
// internal/abi; build it from here with GOOS=wasip1 GOARCH=wasm go build.
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unsafe"

	"github.com/skillrun/skillrun/internal/abi"
)

//go:wasmimport skillrun abi_version
func abiVersion() int32

//go:wasmimport skillrun take
func take(ptr, capacity uint32) int32

//go:wasmimport skillrun input
func input(ptr, size uint32) int32

//go:wasmimport skillrun output
func output(ptr, size uint32) int32

//go:wasmimport skillrun log
func log(ptr, size uint32) int32

//go:wasmimport skillrun tool_call
func toolCall(ptr, size uint32) int32

//go:wasmimport skillrun skills_search
func skillsSearch(ptr, size uint32) int32

//go:wasmimport skillrun skill_activate
func skillActivate(ptr, size uint32) int32

//go:wasmimport skillrun skill_read
func skillRead(ptr, size uint32) int32

//go:wasmimport skillrun skill_run
func skillRun(ptr, size uint32) int32

//go:wasmimport skillrun mcp_call
func mcpCall(ptr, size uint32) int32

//go:wasmimport skillrun http_fetch
func httpFetch(ptr, size uint32) int32

var funcs = []struct {
	name string
	call func(ptr, size uint32) int32
}{
	{abi.FuncInput, input}, {abi.FuncOutput, output}, {abi.FuncLog, log},
	{abi.FuncToolCall, toolCall}, {abi.FuncSkillsSearch, skillsSearch},
	{abi.FuncSkillActivate, skillActivate}, {abi.FuncSkillRead, skillRead},
	{abi.FuncSkillRun, skillRun}, {abi.FuncMCPCall, mcpCall}, {abi.FuncHTTPFetch, httpFetch},
	{abi.FuncTake, nil}, {abi.FuncABIVersion, nil},
}

// Modes (the low two bits of the mode byte) say what the call is given.
const (
	modePayload = iota // the payload, where it lies in guest memory
	modeRaw            // the record's pointer and length as they are
	modeHigh           // a pointer in the last 64 KiB of the 4 GiB space
	modeOverrun        // the payload's pointer with the record's length
)

// takeAfter (bit 2 of the mode byte) takes the response after the call.
const takeAfter = 4

var codes = []string{abi.CodeDenied, abi.CodeInvalid, abi.CodeNotFound, abi.CodeTooLarge, abi.CodeUnavailable, abi.CodeInternal}

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Println("BAD reading stdin:", err)
		return
	}
	buf := make([]byte, abi.MaxPayload+16)
	bufPtr := uint32(uintptr(unsafe.Pointer(&buf[0])))
	n := 0
	for len(in) >= 12 {
		fn, mode := funcs[int(in[0])%len(funcs)], in[1]
		ptr, size := binary.LittleEndian.Uint32(in[2:]), binary.LittleEndian.Uint32(in[6:])
		plen := int(binary.LittleEndian.Uint16(in[10:]))
		in = in[12:]
		payload := append([]byte(nil), in[:min(plen, len(in))]...)
		in = in[min(plen, len(in)):]
		n++

		switch fn.name {
		case abi.FuncABIVersion:
			if v := abiVersion(); v != abi.Version {
				fmt.Printf("BAD abi_version = %d\n", v)
			}
			continue
		case abi.FuncTake:
			capacity := size % uint32(len(buf))
			p := bufPtr
			if mode&3 == modeHigh {
				p = 0xFFFF0000 | ptr&0xFFFF
			}
			got := take(p, capacity)
			if got < -3 || got > abi.MaxPayload || got > int32(capacity) {
				fmt.Printf("BAD take(%#x, %d) = %d\n", p, capacity, got)
			}
			continue
		}

		var pp unsafe.Pointer
		if len(payload) > 0 {
			pp = unsafe.Pointer(&payload[0])
		}
		p, l := uint32(uintptr(pp)), uint32(len(payload))
		switch mode & 3 {
		case modeRaw:
			p, l = ptr, size
		case modeHigh:
			p, l = 0xFFFF0000|ptr&0xFFFF, size
		case modeOverrun:
			l = size
		}
		got := fn.call(p, l)
		if got < 0 || got > abi.MaxPayload {
			fmt.Printf("BAD %s(%#x, %d) returned length %d\n", fn.name, p, l, got)
			continue
		}
		if mode&takeAfter == 0 {
			continue
		}
		if t := take(bufPtr, uint32(got)); t != got {
			fmt.Printf("BAD %s: take returned %d for a %d-byte response\n", fn.name, t, got)
			continue
		}
		checkEnvelope(fn.name, buf[:got])
	}
	fmt.Println("done", n)
}

// checkEnvelope prints a BAD line unless b is a response envelope: a
// result, or an error with a known code and a message.
func checkEnvelope(fn string, b []byte) {
	_, err := abi.DecodeResponse(b)
	if err == nil {
		return
	}
	e, ok := errors.AsType[*abi.Error](err)
	switch {
	case !ok:
		fmt.Printf("BAD %s: error %v is not an *abi.Error\n", fn, err)
	case e.Code == abi.CodeInvalid && len(e.Message) > 18 && e.Message[:18] == "malformed response":
		fmt.Printf("BAD %s: malformed envelope %q: %v\n", fn, b, err)
	case !slices.Contains(codes, e.Code) || e.Message == "":
		fmt.Printf("BAD %s: error code %q, message %q\n", fn, e.Code, e.Message)
	}
}
