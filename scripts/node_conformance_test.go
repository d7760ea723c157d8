package scripts

import (
	"os"
	"os/exec"
	"testing"

	"github.com/skillrun/skillrun/internal/interp"
)

// nativeNode is the baseline of the Node conformance set.
const nativeNode = "/usr/bin/node"

// TestNodeConformance runs every script of testdata/nodeconf/scripts
// (each exercising Node's built-in modules: crypto, url, buffer, events,
// util, assert, timers, fs, os, path, zlib, readline, stream, promises,
// process, string_decoder; CommonJS and ES modules) with /usr/bin/node
// and with skillrun's JavaScript interpreter, on the same arguments,
// stdin and fresh workspace, and requires the same stdout and exit code,
// byte for byte. Standard error is not compared: stack traces name
// different paths.
func TestNodeConformance(t *testing.T) {
	if _, err := os.Stat(nativeNode); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("%s is required (REQUIRE_TOOLCHAINS=1): %v", nativeNode, err)
		}
		t.Skipf("no %s for the baseline: %v", nativeNode, err)
	}
	compareWithNative(t, "nodeconf", "*", interp.JS, nativeNode, func(file string, args []string) *exec.Cmd {
		return exec.Command(nativeNode, append([]string{file}, args...)...)
	})
}
