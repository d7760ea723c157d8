// Command goreactor is a Go WASI reactor (go build -buildmode=c-shared)
// for the tests of wasmopt.GoReactor: its package initialisation sets a
// counter, and each call of skillrun_run adds one, prints it with the
// arguments and returns 3.
package main

import (
	"fmt"
	"os"
)

var counter = start()

func start() int { return 41 }

//go:wasmexport skillrun_init
func skillrunInit() int32 { return 0 }

//go:wasmexport skillrun_run
func skillrunRun() int32 {
	counter++
	fmt.Println("counter", counter, os.Args[1:])
	return 3
}

func main() {}
