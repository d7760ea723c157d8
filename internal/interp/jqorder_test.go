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
// it, before any shell is built.
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
}
