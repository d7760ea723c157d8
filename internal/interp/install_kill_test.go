//go:build unix

package interp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The helper process of TestInstallKilled: it installs
// $KILL_FROM into $KILL_DIR and kills itself with SIGKILL at the
// $KILL_AT-th time stage $KILL_STAGE is reached.
func TestInstallKilledHelper(t *testing.T) {
	stage := os.Getenv("KILL_STAGE")
	if stage == "" {
		t.Skip("the helper process of TestInstallKilled")
	}
	at, _ := strconv.Atoi(os.Getenv("KILL_AT"))
	n := 0
	testHookInstall = func(s string) {
		if s == stage {
			if n++; n == at {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {} // the signal is on its way
			}
		}
	}
	_, err := InstallPythonFrom(os.Getenv("KILL_DIR"), os.Getenv("KILL_FROM"))
	require.FailNow(t, "the install ran to the end", "err %v: stage %q was not reached %d times", err, stage, at)
}

// TestInstallKilled kills a real install (a child process, SIGKILL) at
// each of its stages, over an earlier install and over none, and checks
// what the next user sees: Find gives the earlier interpreter whole (or
// the new one whole, once it is in place), never a mix or a half-copied
// folder, and without an earlier one says it is not installed and how to
// install it; the next install then succeeds and leaves nothing behind.
func TestInstallKilled(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	v1 := fakePython(t, t.TempDir())
	testkit.WriteFile(t, v1, "VERSION", "v1\n")
	testkit.WriteFile(t, v1, "lib/python3.11/only_v1.py", "")
	v2 := fakePython(t, t.TempDir())
	testkit.WriteFile(t, v2, "VERSION", "v2\n")
	for i := range 5 {
		testkit.WriteFile(t, v2, fmt.Sprintf("lib/python3.11/pkg/m%d.py", i), "# v2\n")
	}
	for _, tc := range []struct {
		stage string
		at    int
		isNew bool // the new install is in place when killed here
	}{
		{"module copied", 1, false},
		{"stdlib file copied", 1, false},
		{"stdlib file copied", 4, false},
		{"version written", 1, false},
		{"old moved aside", 1, false},
		{"new moved in", 1, true},
	} {
		for _, earlier := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s#%d/earlier=%v", tc.stage, tc.at, earlier), func(t *testing.T) {
				dir := t.TempDir()
				if earlier {
					_, err := InstallPythonFrom(dir, v1)
					require.NoError(t, err)
				}
				cmd := exec.Command(exe, "-test.run=^TestInstallKilledHelper$", "-test.count=1")
				cmd.Env = append(os.Environ(), "KILL_STAGE="+tc.stage, "KILL_AT="+strconv.Itoa(tc.at), "KILL_DIR="+dir, "KILL_FROM="+v2)
				out, err := cmd.CombinedOutput()
				ee, ok := errors.AsType[*exec.ExitError](err)
				require.True(t, ok, "helper: %v\n%s", err, out)
				ws, _ := ee.Sys().(syscall.WaitStatus)
				require.True(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL, "helper was not killed: %v\n%s", err, out)

				in, err := Find(dir, Python)
				switch {
				case tc.isNew:
					require.NoError(t, err)
					assertInstalled(t, in, "v2", v2)
				case earlier:
					require.NoError(t, err, "the earlier install must survive a killed install")
					assertInstalled(t, in, "v1", v1)
				default:
					require.ErrorIs(t, err, ErrNotInstalled)
					assert.Contains(t, err.Error(), "skillrun interpreters install python")
				}

				in, err = InstallPythonFrom(dir, v2)
				require.NoError(t, err, "the next install after a killed one")
				assertInstalled(t, in, "v2", v2)
				assertNoLeftovers(t, dir)
			})
		}
	}
}

// assertInstalled checks that in is exactly the prebuilt from: its
// version and the same standard library files, no more, no fewer.
func assertInstalled(t *testing.T, in *Interpreter, version, from string) {
	t.Helper()
	assert.Equal(t, version, in.Version)
	assert.Equal(t, readString(t, filepath.Join(from, "python.wasm")), readString(t, in.Module))
	files := func(root string) []string {
		var list []string
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if _, ours := skillrunFiles[d.Name()]; err == nil && !d.IsDir() && !ours {
				rel, _ := filepath.Rel(root, p)
				list = append(list, rel)
			}
			return err
		}))
		slices.Sort(list)
		return list
	}
	assert.Equal(t, files(filepath.Join(from, "lib")), files(filepath.Join(in.Dir, "lib")), "standard library of %s", version)
}

// A temporary folder of a running install is never removed by another
// install; one of a process that is gone is.
func TestCleanLeftoversKeepsLiveInstalls(t *testing.T) {
	dir := t.TempDir()
	live, err := mkInstallTemp(dir, "install-python")
	require.NoError(t, err)
	dead := filepath.Join(dir, ".build-js-"+strconv.Itoa(deadPID(t))+"-123")
	testkit.WriteFile(t, dead, "js.wasm", wasmMagic)
	require.NoError(t, cleanLeftovers(dir))
	assert.DirExists(t, live, "the folder of this (running) process")
	assert.NoDirExists(t, dead, "the folder of a process that is gone")
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}
