package scripts

import (
	"os"
	"os/exec"
	"testing"

	"github.com/skillrun/skillrun/internal/interp"
)

// TestBashConformance runs every script of testdata/bashconf/scripts
// (what published scripts use beyond the Oils cases: descriptors above
// 2, process substitution, aliases, redirection failures, jq's argument
// options, key order and numbers, column, join, split, timeout,
// envsubst) with /bin/bash and with skillrun's sandboxed shell, on the
// same arguments and stdin, each in a fresh working directory, and
// requires the same stdout and exit code, byte for byte. Standard error
// is not compared: bash's messages name the script's host path; the
// scripts print the messages they check without it.
func TestBashConformance(t *testing.T) {
	for _, tool := range []string{nativeBash, "/usr/bin/jq", "/usr/bin/column", "/usr/bin/join", "/usr/bin/split", "/usr/bin/envsubst", "/usr/bin/timeout", "/usr/bin/python3"} {
		if _, err := os.Stat(tool); err != nil {
			if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
				t.Fatalf("%s is required for the baseline (REQUIRE_TOOLCHAINS=1): %v", tool, err)
			}
			t.Skipf("no %s for the baseline: %v", tool, err)
		}
	}
	compareWithNative(t, "bashconf", "*.sh", interp.Shell, nativeBash, func(file string, args []string) *exec.Cmd {
		cmd := exec.Command(nativeBash, append([]string{file}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=/nonexistent"}
		return cmd
	})
}
