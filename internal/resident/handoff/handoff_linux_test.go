package handoff

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCommandLine: the arguments read from /proc/self/cmdline are the
// process's (os.Args).
func TestCommandLine(t *testing.T) {
	assert.Equal(t, os.Args, commandLine())
}
