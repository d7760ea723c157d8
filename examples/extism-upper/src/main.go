// Command upper is the extism-upper skill's Extism plugin: its export run
// upper-cases its input. Build it as a WASI reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o ../scripts/upper.wasm .
package main

import (
	"bytes"

	"github.com/extism/go-pdk"
)

// run returns its input in upper case.
//
//go:wasmexport run
func run() int32 {
	pdk.Output(bytes.ToUpper(pdk.Input()))
	return 0
}

func main() {}
