package handoff

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandLine: the arguments read from /proc/self/cmdline are the
// process's (os.Args).
func TestCommandLine(t *testing.T) {
	assert.Equal(t, os.Args, CommandLine())
}

// TestTerminalStdin: with stdin on a terminal, the verbs that may read it
// (a prompt, a script, the shell) are not handed over; the others are.
func TestTerminalStdin(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	defer ptmx.Close()
	require.True(t, isTerminal(int(ptmx.Fd())))
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(int(null.Fd())), "a character device is not a terminal")

	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(Env, "")
	tty := [3]int{int(ptmx.Fd()), int(null.Fd()), int(null.Fd())}
	for _, verb := range []string{"run", "shell", "test", "deps"} {
		started := false
		_, handed := Handoff([]string{verb, "x"}, tty, func() { started = true })
		assert.False(t, handed, verb)
		assert.False(t, started, "%s: nothing asked the resident, nothing started it", verb)
	}
	for _, verb := range []string{"validate", "show", "catalog", "search"} {
		started := false
		_, handed := Handoff([]string{verb, "x"}, tty, func() { started = true })
		assert.False(t, handed, "no resident listens")
		assert.True(t, started, "%s asked the resident, and started one", verb)
	}
}
