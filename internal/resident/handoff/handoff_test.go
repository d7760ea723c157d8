package handoff

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEnabled: the resident's verbs are handed over unless
// SKILLRUN_RESIDENT=0 or --no-resident (before a "--") says otherwise.
func TestEnabled(t *testing.T) {
	t.Setenv(Env, "")
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"run", "skill"}, true},
		{[]string{"shell", "-c", "echo hi"}, true},
		{[]string{"validate", "."}, true},
		{[]string{"test"}, true},
		{[]string{"mcp", "."}, false},
		{[]string{"session"}, false},
		{[]string{"resident"}, false},
		{[]string{"interpreters", "install", "python"}, false},
		{nil, false},
		{[]string{"--help"}, false},
		{[]string{"run", "--no-resident", "skill"}, false},
		{[]string{"run", "skill", "--", "--no-resident"}, true}, // the script's argument
	} {
		assert.Equal(t, c.want, Enabled(c.args), "%q", c.args)
	}
	t.Setenv(Env, "1")
	assert.True(t, Enabled([]string{"run", "x"}))
	t.Setenv(Env, "0")
	assert.False(t, Enabled([]string{"run", "x"}))
}
