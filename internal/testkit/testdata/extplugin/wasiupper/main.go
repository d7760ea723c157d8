// Command wasiupper upper-cases stdin to stdout: the WASI command
// BenchmarkExtismCall compares an Extism call of extplugin's "upper" with.
//
//	GOOS=wasip1 GOARCH=wasm go build -o wasiupper.wasm .
package main

import (
	"bytes"
	"io"
	"os"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(1)
	}
	_, _ = os.Stdout.Write(bytes.ToUpper(in))
}
