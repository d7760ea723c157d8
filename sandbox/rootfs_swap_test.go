package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sys "github.com/tetratelabs/wazero/experimental/sys"
)

// Tests that guard rootFS's checks against a file swapped for a symlink
// between a check and its use (issue 11, "tests that guard the guards").
// The symlinks point inside the mount, so os.Root alone would follow them
// and only the checks under test refuse.

// swapForLink replaces the file name in dir by a symlink to target.
func swapForLink(t *testing.T, dir, name, target string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.Rename(p, p+".old"))
	require.NoError(t, os.Symlink(target, p))
}

// TestRootFSNoFollowSwap: an O_NOFOLLOW open Lstats the file, then opens
// it; a file replaced by a symlink in between must give ELOOP, as
// open(2) with O_NOFOLLOW would, not the link's target.
func TestRootFSNoFollowSwap(t *testing.T) {
	fx := newRootFSFixture(t, true)
	testHookOpen = func(string) { swapForLink(t, fx.dir, "a.txt", "sub/b.txt") }
	defer func() { testHookOpen = nil }()
	f, errno := fx.fs.OpenFile("a.txt", sys.O_RDONLY|sys.O_NOFOLLOW, 0)
	if errno == 0 {
		got := sysReadAll(t, f)
		f.Close()
		require.FailNow(t, "opened the swapped-in link's target; want ELOOP", "read %q", got)
	}
	assert.Equal(t, sys.ELOOP, errno, "errno")
}

// TestRootFSUtimensSwap: File.Utimens sets times through the path the
// file was opened with; if the path now names another file (a symlink to
// it), it must fail with ENOENT and leave the other file alone.
func TestRootFSUtimensSwap(t *testing.T) {
	fx := newRootFSFixture(t, true)
	f, errno := fx.fs.OpenFile("a.txt", sys.O_RDONLY, 0)
	require.Zero(t, errno)
	defer f.Close()
	b := filepath.Join(fx.dir, "sub", "b.txt")
	before, err := os.Stat(b)
	require.NoError(t, err)
	swapForLink(t, fx.dir, "a.txt", "sub/b.txt")
	when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC).UnixNano()
	assert.Equal(t, sys.ENOENT, f.Utimens(when, when), "Utimens after the swap: errno")
	after, err := os.Stat(b)
	require.NoError(t, err)
	assert.True(t, after.ModTime().Equal(before.ModTime()), "the link's target got new times: %v, was %v", after.ModTime(), before.ModTime())
}
