package shellcmd

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIs(t *testing.T) {
	for _, name := range []string{"grep", "jq", "awk", "sed", "echo", "[", "true"} {
		assert.True(t, Is(name), name)
	}
	for _, name := range []string{"", "git", "soffice", "python3", "sh", "GREP", "grep "} {
		assert.False(t, Is(name), name)
	}
	assert.True(t, slices.IsSorted(names), "names must stay sorted for the binary search")
}

func TestPrograms(t *testing.T) {
	p := Programs()
	assert.True(t, slices.IsSorted(p))
	for _, name := range []string{"python3", "node", "sh", "bash", "grep", "jq", "echo", "["} {
		assert.Contains(t, p, name)
	}
	assert.NotContains(t, p, "git")
	assert.True(t, IsInterpreter("python3"))
	assert.False(t, IsInterpreter("grep"))
}
