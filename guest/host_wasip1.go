//go:build wasip1

package guest

import (
	"unsafe"

	"github.com/skillrun/skillrun/internal/abi"
)

//go:wasmimport skillrun abi_version
func hostABIVersion() int32

//go:wasmimport skillrun take
func hostTake(ptr unsafe.Pointer, capacity uint32) int32

//go:wasmimport skillrun input
func hostInput(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun output
func hostOutput(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun log
func hostLog(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun tool_call
func hostToolCall(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun skills_search
func hostSkillsSearch(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun skill_activate
func hostSkillActivate(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun skill_read
func hostSkillRead(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun skill_run
func hostSkillRun(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun mcp_call
func hostMCPCall(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun http_fetch
func hostHTTPFetch(ptr unsafe.Pointer, size uint32) int32

//go:wasmimport skillrun exec
func hostExec(ptr unsafe.Pointer, size uint32) int32

var imports = map[string]func(unsafe.Pointer, uint32) int32{
	abi.FuncInput:         hostInput,
	abi.FuncOutput:        hostOutput,
	abi.FuncLog:           hostLog,
	abi.FuncToolCall:      hostToolCall,
	abi.FuncSkillsSearch:  hostSkillsSearch,
	abi.FuncSkillActivate: hostSkillActivate,
	abi.FuncSkillRead:     hostSkillRead,
	abi.FuncSkillRun:      hostSkillRun,
	abi.FuncMCPCall:       hostMCPCall,
	abi.FuncHTTPFetch:     hostHTTPFetch,
	abi.FuncExec:          hostExec,
}

// ABIVersion returns the host's ABI version.
func ABIVersion() int { return int(hostABIVersion()) }

// hostCall calls the host function fn with req and takes the response.
func hostCall(fn string, req []byte) ([]byte, error) {
	f := imports[fn]
	var p unsafe.Pointer
	if len(req) > 0 {
		p = unsafe.Pointer(&req[0])
	}
	n := f(p, uint32(len(req)))
	if n < 0 || n > abi.MaxPayload {
		return nil, abi.Errorf(abi.CodeInternal, "%s: the host answered with length %d", fn, n)
	}
	buf := make([]byte, n)
	var bp unsafe.Pointer
	if n > 0 {
		bp = unsafe.Pointer(&buf[0])
	}
	if got := hostTake(bp, uint32(n)); got != n {
		return nil, abi.Errorf(abi.CodeInternal, "%s: take returned %d for a %d-byte response", fn, got, n)
	}
	return buf, nil
}
