package interp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// TestGoSourceHashFollowsEdits: the hash of a Go guest's source, kept
// for a process that runs many commands, changes when a file of it does
// (even to the same size) and stays when nothing changed; goSourceHash
// answers from its last look for a moment.
func TestGoSourceHashFollowsEdits(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{
		"go.mod":                   "module x\n",
		"go.sum":                   "",
		"internal/interp/shell.go": "package interp\n",
		"internal/abi/abi.go":      "package abi\n",
		"guest/guest.go":           "package guest\n",
		"guest/interp/sh/main.go":  "package main // one\n",
		"guest/interp/sh/x/x.go":   "package x\n",
	})
	first, err := goSourceHashNow(root, "guest/interp/sh")
	require.NoError(t, err)
	again, err := goSourceHashNow(root, "guest/interp/sh")
	require.NoError(t, err)
	assert.Equal(t, first, again)

	main := filepath.Join(root, "guest", "interp", "sh", "main.go")
	require.NoError(t, os.WriteFile(main, []byte("package main // two\n"), 0o644))
	later := time.Now().Add(time.Second)
	require.NoError(t, os.Chtimes(main, later, later))
	edited, err := goSourceHashNow(root, "guest/interp/sh")
	require.NoError(t, err)
	assert.NotEqual(t, first, edited, "an edit of the same size changes the hash")

	testkit.WriteFile(t, root, "guest/interp/sh/x/y.go", "package x\n")
	added, err := goSourceHashNow(root, "guest/interp/sh")
	require.NoError(t, err)
	assert.NotEqual(t, edited, added, "a new file changes the hash")

	recent, err := goSourceHash(root, "guest/interp/sh")
	require.NoError(t, err)
	assert.Equal(t, added, recent)
	testkit.WriteFile(t, root, "guest/interp/sh/x/z.go", "package x\n")
	again, err = goSourceHash(root, "guest/interp/sh")
	require.NoError(t, err)
	assert.Equal(t, added, again, "within sourceRecheck: the last look")
	now, err := goSourceHashNow(root, "guest/interp/sh")
	require.NoError(t, err)
	assert.NotEqual(t, added, now)
}
