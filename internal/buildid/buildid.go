// Package buildid identifies the running skillrun executable, for what
// one build keeps for itself on disk (the sandbox's scan verdicts) or
// shares only with the same build (the resident process).
package buildid

import (
	"fmt"
	"os"
	"sync"
)

// Executable returns the running executable's path, size and
// modification time as one string, or "" when it cannot be found. Any
// rebuild changes it.
var Executable = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())
})
