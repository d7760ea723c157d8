package interp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGojqOrderPatch applies the key-order patch to a copy of the gojq
// in the module cache and builds it for GOOS=wasip1, as the shell's
// build does: a hook whose text gojq no longer has fails here, naming
// it, before any shell is built. Then it runs the patch's own tests in
// the copy.
func TestGojqOrderPatch(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/itchyny/gojq").Output()
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "gojq")
	require.NoError(t, copyTreeWritable(string(out[:len(out)-1]), dir))
	require.NoError(t, patchGojqOrder(dir))
	build := exec.Command("go", "vet", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-mod=mod")
	b, err := build.CombinedOutput()
	require.NoError(t, err, "%s", b)

	// order.go's own tests, natively in the patched copy: key order and
	// numbers as jq 1.6 prints them, and entries collected with their
	// objects.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skillrun_order_test.go"), stripIgnore(gojqOrderTests), 0o644))
	test := exec.Command("go", "test", "-count=1", "-run", "^TestSk", ".")
	test.Dir = dir
	test.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	b, err = test.CombinedOutput()
	require.NoError(t, err, "%s", b)
}
