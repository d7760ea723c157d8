// Command fib prints fib(N), computed the slow recursive way, for the
// sandbox benchmarks: the same source is built for GOOS=wasip1 (run under
// wazero) and natively (run as a subprocess), so the two can be compared.
//
//	GOOS=wasip1 GOARCH=wasm go build -o fib.wasm .
//	go build -o fib .
package main

import (
	"fmt"
	"os"
	"strconv"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	n := 20
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "usage: fib N")
			os.Exit(2)
		}
		n = v
	}
	fmt.Println(fib(n))
}
