package scripts

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestSlowCompileProgress: a compile that takes over 3 seconds (a real
// one, not a load from the cache) is announced, then its time; a fast
// one says nothing; no Progress, nothing at all.
func TestSlowCompileProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: times a real compile of over 3 s; the full suite runs it")
	}
	var b bytes.Buffer
	r := &Runner{progress: &b}
	r.slowCompile("python.wasm", 11_241_800)()
	assert.Empty(t, b.String(), "a fast load is not announced")

	done := r.slowCompile("python.wasm", 11_241_800)
	time.Sleep(3200 * time.Millisecond)
	done()
	assert.Regexp(t, `^skillrun: compiling the interpreter python.wasm \(11.2 MB\) into the compile cache, once per machine and skillrun version\.\.\.\n`+
		`skillrun: compiled python.wasm in 3\.[0-9]s\n$`, b.String())

	quiet := &Runner{}
	quiet.slowCompile("python.wasm", 1)() // no writer: no panic, nothing
}
