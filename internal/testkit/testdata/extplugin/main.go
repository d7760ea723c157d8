// Command extplugin is the Extism test plugin of packages sandbox and scripts
// (extism_test.go), written with go-pdk and built as a WASI reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o extplugin.wasm .
//
// Each export exercises one part of sandbox.Runtime.CallPlugin.
package main

import (
	"bytes"

	"github.com/extism/go-pdk"
)

// skillrunLog is skillrun's log host function, Extism style: the request's
// offset in, the response's offset out.
//
//go:wasmimport skillrun log
func skillrunLog(uint64) uint64

//go:wasmimport skillrun tool_call
func skillrunToolCall(uint64) uint64

//go:wasmimport skillrun http_fetch
func skillrunHTTPFetch(uint64) uint64

// upper upper-cases its input.
//
//go:wasmexport upper
func upper() int32 {
	pdk.Output(bytes.ToUpper(pdk.Input()))
	return 0
}

// log sends its input to skillrun's log host function and returns the
// response envelope.
//
//go:wasmexport log
func log() int32 {
	req := pdk.AllocateBytes(pdk.Input())
	resp := pdk.FindMemory(skillrunLog(req.Offset()))
	pdk.OutputMemory(resp)
	return 0
}

// tool calls skillrun's tool_call host function with its input.
//
//go:wasmexport tool
func tool() int32 {
	req := pdk.AllocateBytes(pdk.Input())
	pdk.OutputMemory(pdk.FindMemory(skillrunToolCall(req.Offset())))
	return 0
}

// fetch GETs the URL in its input with Extism's http_request and returns
// the body.
//
//go:wasmexport fetch
func fetch() int32 {
	resp := pdk.NewHTTPRequest(pdk.MethodGet, pdk.InputString()).Send()
	pdk.Output(resp.Body())
	return 0
}

// skfetch sends its input (a fetch request) to skillrun's http_fetch host
// function, the network path for plugins, and returns the response
// envelope.
//
//go:wasmexport skfetch
func skfetch() int32 {
	req := pdk.AllocateBytes(pdk.Input())
	pdk.OutputMemory(pdk.FindMemory(skillrunHTTPFetch(req.Offset())))
	return 0
}

// fail returns 1 with an error message.
//
//go:wasmexport fail
func fail() int32 {
	pdk.SetErrorString("bad input: " + pdk.InputString())
	return 1
}

var sink int

// loop never returns.
//
//go:wasmexport loop
func loop() int32 {
	for i := 0; ; i++ {
		sink += i
	}
}

var hoard [][]byte

// bomb allocates until memory runs out.
//
//go:wasmexport bomb
func bomb() int32 {
	for {
		b := make([]byte, 1<<20)
		b[0] = 1
		hoard = append(hoard, b)
	}
}

// big outputs as many bytes as its input says (a decimal number).
//
//go:wasmexport big
func big() int32 {
	n := 0
	for _, c := range pdk.InputString() {
		n = n*10 + int(c-'0')
	}
	pdk.Output(make([]byte, n))
	return 0
}

func main() {}
