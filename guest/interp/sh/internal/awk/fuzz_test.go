package awk

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzAwk runs arbitrary programs on small input and checks that awk
// neither panics nor hangs: every run must return a status.
func FuzzAwk(f *testing.F) {
	for _, c := range mawkCases {
		for _, a := range c.args {
			if len(a) > 3 {
				f.Add(a, c.stdin)
				break
			}
		}
	}
	f.Add(`BEGIN { while (1) x++ }`, "")
	f.Add(`{ $(NF+2) = $1; NF--; print; print length() }`, "a b c\n")
	f.Add(`BEGIN { printf "%*.*f|%c|%5%|%", -3, 2, 1/3, 256 }`, "")
	f.Add(`function f(a) { a[1] = 1; return length(a) } { print f(x), (1 in x) }`, "q\n")
	f.Add(`BEGIN { RS = "[,;]+" } { gsub(/[[:alpha:]]*/, "<&>"); print NR ": " $0 }`, "ab,cd;;e")

	// Generated programs must not write files or use much memory.
	oldOpen, oldMax := openFile, maxStringLen
	openFile = func(string, int) (io.WriteCloser, error) { return nil, errors.New("disabled while fuzzing") }
	maxStringLen = 1 << 20
	f.Cleanup(func() { openFile, maxStringLen = oldOpen, oldMax })

	f.Fuzz(func(t *testing.T, prog, input string) {
		e, _, _ := newEnv(t, input)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		e.Ctx = ctx
		done := make(chan int, 1)
		go func() { done <- Main(e, []string{"awk", prog, "-"}) }()
		select {
		case st := <-done:
			if st < 0 || st > 255 {
				t.Fatalf("status %d out of range", st)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("awk %q did not return", prog)
		}
	})
}
