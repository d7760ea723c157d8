package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandoffInitsFirst: the handoff package's init, which hands a
// command to the resident, runs before the packages whose
// initialisation makes skillrun's start slow (JSON Schema tables, the
// provider and MCP SDKs, net, encoding/json): Go's own trace of this
// binary's initialisation says in which order they ran.
func TestHandoffInitsFirst(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var order []string
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	const handoff = "github.com/skillrun/skillrun/internal/resident/handoff/early"
	at := func(pkg string) int {
		for i, p := range order {
			if p == pkg {
				return i
			}
		}
		return -1
	}
	h := at(handoff)
	require.GreaterOrEqual(t, h, 0, "no init trace of %s in:\n%s", handoff, out)
	for _, heavy := range []string{"github.com/santhosh-tekuri/jsonschema/v6", "github.com/anthropics/anthropic-sdk-go",
		"github.com/openai/openai-go/v3", "github.com/modelcontextprotocol/go-sdk/mcp", "encoding/json", "net", "os"} {
		if i := at(heavy); i >= 0 {
			assert.Less(t, h, i, "%s initialised before the handoff", heavy)
		}
	}
	assert.Less(t, h, 25, "the handoff is initialised among the first packages: %v", order[:h])
}
