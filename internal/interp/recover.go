package interp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// How installs survive being killed
//
// An install never writes into an interpreter's folder: it fills a
// temporary folder beside it (named by the installing process's id), then
// swaps it into place with two renames (replaceDir: the old folder to
// "<name>.old", the new one to "<name>"). A kill while filling leaves the
// old install as it was plus a temporary folder; a kill between the two
// renames leaves no "<name>" but a complete "<name>.old"; a kill after
// them leaves a "<name>.old" to remove. recoverDir puts the old install
// back in the second case and removes it in the third; cleanLeftovers
// removes temporary folders whose process is gone. Find recovers before
// it looks, and every install cleans up before it starts, under the
// folder's lock so that two processes never swap at once.

// testHookInstall, when set (by tests only), is called at each stage of
// an install, so a test can kill the process there.
var testHookInstall func(stage string)

func installStage(stage string) {
	if testHookInstall != nil {
		testHookInstall(stage)
	}
}

// lockName is the lock file of an interpreters folder. It is locked only
// around the swap and the recovery, never during a build.
const lockName = ".lock"

// staleAge is how old a temporary folder of a process that cannot be
// checked must be before it is removed.
const staleAge = 24 * time.Hour

// mkInstallTemp makes the temporary folder of an install in dir:
// ".<kind>-<pid>-<random>", so cleanLeftovers can tell whether its
// process is still running.
func mkInstallTemp(dir, kind string) (string, error) {
	return os.MkdirTemp(dir, "."+kind+"-"+strconv.Itoa(os.Getpid())+"-")
}

// recoverDir finishes or undoes a swap of the folder to that was cut
// short: with no to but a to.old, the old install is put back; with both,
// to.old is removed. The caller holds the lock.
func recoverDir(to string) error {
	old := to + ".old"
	if _, err := os.Lstat(old); errors.Is(err, fs.ErrNotExist) {
		return nil // nothing was cut short
	} else if err != nil {
		return err
	}
	if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(old, to); err != nil {
			return fmt.Errorf("an interrupted install left the previous interpreter in %s, and putting it back failed: %w; remove it and run `skillrun interpreters install`", old, err)
		}
		return nil
	}
	return os.RemoveAll(old)
}

// recoverLocked takes dir's lock and runs recoverDir on to, if to.old
// says an install was cut short (so that Find, in the common case, takes
// no lock and writes nothing).
func recoverLocked(dir, to string) error {
	if _, err := os.Lstat(to + ".old"); err != nil {
		return nil
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	return recoverDir(to)
}

// cleanLeftovers removes the temporary folders in dir of installs whose
// process is gone (or, when that cannot be told, older than staleAge),
// and recovers every interpreter folder. The caller holds the lock.
func cleanLeftovers(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".old") && !strings.HasPrefix(n, "."):
			errs = append(errs, recoverDir(filepath.Join(dir, strings.TrimSuffix(n, ".old"))))
		case strings.HasPrefix(n, ".install-") || strings.HasPrefix(n, ".build-"):
			if leftover(e) {
				errs = append(errs, os.RemoveAll(filepath.Join(dir, n)))
			}
		}
	}
	return errors.Join(errs...)
}

// leftover reports whether the temporary folder e was left by a process
// that is gone.
func leftover(e fs.DirEntry) bool {
	parts := strings.SplitN(e.Name(), "-", 4) // "", kind, pid, random (kind may hold no "-")
	if len(parts) >= 3 {
		for i := 1; i < len(parts); i++ {
			if pid, err := strconv.Atoi(parts[i]); err == nil && pid > 0 {
				if alive, known := processAlive(pid); known {
					return !alive
				}
				break
			}
		}
	}
	fi, err := e.Info()
	return err == nil && time.Since(fi.ModTime()) > staleAge
}
