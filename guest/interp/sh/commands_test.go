package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/internal/shellcmd"
)

// TestCommandNames keeps the host's list of the shell's commands (the
// exec host function starts them for Python scripts) equal to the
// shell's own table.
func TestCommandNames(t *testing.T) {
	var want []string
	for name := range maps.Keys(builtinCommands()) {
		if !strings.HasPrefix(name, "__") {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	assert.Equal(t, want, shellcmd.Names(), "internal/shellcmd's names differ from the shell's commands")
	assert.True(t, slices.IsSorted(shellcmd.Names()))
}
