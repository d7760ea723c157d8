//go:build unix

package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	sys "github.com/tetratelabs/wazero/experimental/sys"

	"github.com/skillrun/skillrun/internal/fsguard"
)

// FuzzRootFS drives the guest's file system (rootFS over os.Root) with
// random operations on random paths and flags, against a mount holding
// symlinks that lead out of it (up -> .., abs -> /.../outside, a relative
// link to the canary, a link loop) and a protected folder. Properties,
// checked after every operation:
//   - nothing outside the mount changes: the canary file and the folder
//     holding it keep their entries, contents, modes and times, and no
//     entry appears beside the mount;
//   - nothing in the protected folder changes, even on a writable mount;
//   - a file that opens is never one outside the mount (by device and
//     inode), and Readlink never returns a host path;
//   - every denial (EPERM, EACCES, EROFS) reaches the audit hook.
func FuzzRootFS(f *testing.F) {
	for _, ops := range [][]fuzzFSOp{
		{{op: fsOpOpen, flag: uint16(sys.O_RDONLY), p: "rel"}},
		{{op: fsOpOpen, flag: uint16(sys.O_RDWR | sys.O_CREAT | sys.O_TRUNC), p: "up/outside/canary"}},
		{{op: fsOpOpen, flag: uint16(sys.O_WRONLY | sys.O_CREAT), p: "abs/new"}},
		{{op: fsOpOpen, flag: uint16(sys.O_RDONLY | sys.O_DIRECTORY), p: "d/deep"}},
		{{op: fsOpOpen, flag: uint16(sys.O_WRONLY | sys.O_APPEND), p: "skills/s/SKILL.md"}},
		{{op: fsOpUnlink, p: "rel"}, {op: fsOpUnlink, p: "up/outside/canary"}},
		{{op: fsOpRename, p: "file", q: "up/stolen"}, {op: fsOpRename, p: "skills/s", q: "moved"}},
		{{op: fsOpRename, p: "d", q: "skills/s/d"}, {op: fsOpRmdir, p: "skills/s/sub"}},
		{{op: fsOpMkdir, p: "abs/x"}, {op: fsOpMkdir, p: "/tmp/fuzz-x"}, {op: fsOpMkdir, p: "../x"}},
		{{op: fsOpChmod, flag: 0o7777, p: "rel"}, {op: fsOpUtimens, p: "abs/canary"}},
		{{op: fsOpStat, p: "abs/canary"}, {op: fsOpLstat, p: "up/.."}, {op: fsOpReadlink, p: "abs"}, {op: fsOpReadlink, p: "d/deep"}},
		{{op: fsOpSymlink, p: "/", q: "root"}, {op: fsOpLink, p: "rel", q: "hard"}},
		{{op: fsOpOpen, flag: uint16(sys.O_RDONLY), p: "loop"}, {op: fsOpOpen, flag: uint16(sys.O_RDONLY), p: "in/../../outside/canary"}},
	} {
		f.Add(encodeFSOps(ops), true)
		f.Add(encodeFSOps(ops), false)
	}
	base := f.TempDir()
	var n int
	var mu sync.Mutex
	f.Fuzz(func(t *testing.T, data []byte, writable bool) {
		mu.Lock()
		n++
		dir := filepath.Join(base, fmt.Sprint(n))
		mu.Unlock()
		defer os.RemoveAll(dir)
		w := newFuzzWorld(t, dir)
		root, err := os.OpenRoot(w.mount)
		require.NoError(t, err)
		guard, err := fsguard.New(root, w.mount, []string{w.protected})
		if err != nil || guard == nil {
			t.Fatalf("guard for %s: %v, %v", w.protected, guard, err)
		}
		var audited []sys.Errno
		fsys := newRootFS(root, writable, guard, func(_, _ string, errno sys.Errno, _ string) {
			audited = append(audited, errno)
		})
		defer fsys.Close()
		for _, op := range decodeFSOps(data) {
			audited = audited[:0]
			errno := w.apply(t, fsys, op)
			if isDenial(errno) && !slices.Contains(audited, errno) {
				t.Errorf("%s: denied with %v, but the audit saw %v", op, errno, audited)
			}
			w.check(t, op)
		}
	})
}

const (
	fsOpOpen = iota
	fsOpMkdir
	fsOpRmdir
	fsOpUnlink
	fsOpRename
	fsOpChmod
	fsOpUtimens
	fsOpStat
	fsOpLstat
	fsOpReadlink
	fsOpSymlink
	fsOpLink
	fsOpCount
)

var fsOpNames = []string{"open", "mkdir", "rmdir", "unlink", "rename", "chmod", "utimens", "stat", "lstat", "readlink", "symlink", "link"}

type fuzzFSOp struct {
	op   byte
	flag uint16
	p, q string
}

func (o fuzzFSOp) String() string {
	return fmt.Sprintf("%s(%q, %q, %#o)", fsOpNames[o.op], o.p, o.q, o.flag)
}

// encodeFSOps is the fuzz input decodeFSOps reads: per operation, the op,
// two flag bytes, then two strings each led by its length byte.
func encodeFSOps(ops []fuzzFSOp) []byte {
	var b []byte
	for _, o := range ops {
		b = append(b, o.op)
		b = binary.LittleEndian.AppendUint16(b, o.flag)
		b = append(b, byte(len(o.p)))
		b = append(b, o.p...)
		b = append(b, byte(len(o.q)))
		b = append(b, o.q...)
	}
	return b
}

func decodeFSOps(b []byte) []fuzzFSOp {
	str := func() string {
		if len(b) == 0 {
			return ""
		}
		n := min(int(b[0]), len(b)-1)
		s := string(b[1 : 1+n])
		b = b[1+n:]
		return s
	}
	var ops []fuzzFSOp
	for len(b) >= 3 && len(ops) < 32 {
		o := fuzzFSOp{op: b[0] % fsOpCount, flag: binary.LittleEndian.Uint16(b[1:])}
		b = b[3:]
		o.p, o.q = str(), str()
		ops = append(ops, o)
	}
	return ops
}

// A fuzzWorld is the files of one fuzz run: dir holds the mount, a folder
// outside it with the canary, and nothing else.
type fuzzWorld struct {
	dir, mount, outside, protected string
	outsideIDs                     map[[2]uint64]string // device and inode of what lies outside
	before, protBefore             string
}

func newFuzzWorld(t *testing.T, dir string) *fuzzWorld {
	t.Helper()
	w := &fuzzWorld{dir: dir, mount: filepath.Join(dir, "mount"), outside: filepath.Join(dir, "outside")}
	w.protected = filepath.Join(w.mount, "skills", "s")
	must := func(err error) {
		require.NoError(t, err)
	}
	for _, d := range []string{w.outside, filepath.Join(w.mount, "d", "sub"), filepath.Join(w.protected, "sub")} {
		must(os.MkdirAll(d, 0o755))
	}
	must(os.WriteFile(filepath.Join(w.outside, "canary"), []byte("canary: must never be read or changed"), 0o644))
	must(os.WriteFile(filepath.Join(w.mount, "file"), []byte("inside"), 0o644))
	must(os.WriteFile(filepath.Join(w.protected, "SKILL.md"), []byte("protected"), 0o644))
	for link, target := range map[string]string{
		"up":      "..",
		"abs":     w.outside,
		"rel":     "../outside/canary",
		"in":      "d",
		"loop":    "loop",
		"d/deep":  "../../outside",
		"skl":     "skills/s/SKILL.md",
		"d/inner": "../file",
	} {
		must(os.Symlink(target, filepath.Join(w.mount, link)))
	}
	w.outsideIDs = map[[2]uint64]string{}
	for _, p := range []string{dir, w.outside, filepath.Join(w.outside, "canary")} {
		fi, err := os.Stat(p)
		must(err)
		st := fi.Sys().(*syscall.Stat_t)
		dev := uint64(st.Dev) //nolint:unconvert // Dev is not uint64 everywhere
		w.outsideIDs[[2]uint64{dev, st.Ino}] = p
	}
	w.before = snapshot(t, w.outside) + "|" + listing(t, dir)
	w.protBefore = snapshot(t, w.protected)
	return w
}

// apply runs one operation and returns its errno.
func (w *fuzzWorld) apply(t *testing.T, fsys *rootFS, o fuzzFSOp) sys.Errno {
	t.Helper()
	switch o.op {
	case fsOpOpen:
		file, errno := fsys.OpenFile(o.p, sys.Oflag(o.flag)&0x1fff, fs.FileMode(o.flag)&0o777)
		if errno != 0 {
			return errno
		}
		defer file.Close()
		st, errno := file.Stat()
		if errno == 0 {
			if p, out := w.outsideIDs[[2]uint64{st.Dev, st.Ino}]; out {
				t.Fatalf("%s opened %s, outside the mount", o, p)
			}
		}
		buf := make([]byte, 64)
		_, _ = file.Read(buf)
		_, _ = file.Write([]byte("fuzz"))
		_, _ = file.Readdir(-1)
		_ = file.Truncate(0)
		return 0
	case fsOpMkdir:
		return fsys.Mkdir(o.p, fs.FileMode(o.flag))
	case fsOpRmdir:
		return fsys.Rmdir(o.p)
	case fsOpUnlink:
		return fsys.Unlink(o.p)
	case fsOpRename:
		return fsys.Rename(o.p, o.q)
	case fsOpChmod:
		return fsys.Chmod(o.p, fs.FileMode(o.flag))
	case fsOpUtimens:
		return fsys.Utimens(o.p, int64(o.flag), int64(o.flag))
	case fsOpStat:
		_, errno := fsys.Stat(o.p)
		return errno
	case fsOpLstat:
		_, errno := fsys.Lstat(o.p)
		return errno
	case fsOpReadlink:
		target, errno := fsys.Readlink(o.p)
		if errno == 0 && (strings.HasPrefix(target, "/") || strings.Contains(target, w.dir)) {
			t.Fatalf("%s returned the host path %q", o, target)
		}
		return errno
	case fsOpSymlink:
		return fsys.Symlink(o.p, o.q)
	case fsOpLink:
		return fsys.Link(o.p, o.q)
	}
	return 0
}

// check fails the test if anything outside the mount or in the protected
// folder changed.
func (w *fuzzWorld) check(t *testing.T, o fuzzFSOp) {
	t.Helper()
	if got := snapshot(t, w.outside) + "|" + listing(t, w.dir); got != w.before {
		t.Fatalf("after %s, outside the mount:\n%s\nwas:\n%s", o, got, w.before)
	}
	if got := snapshot(t, w.protected); got != w.protBefore {
		t.Fatalf("after %s, the protected folder:\n%s\nwas:\n%s", o, got, w.protBefore)
	}
}

// snapshot describes every file under dir: path, type, mode, size, time
// and a hash of the contents.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	require.NoError(t, err, "snapshot of %s", dir)
	return b.String()
}

func listing(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names bytes.Buffer
	for _, e := range ents {
		fmt.Fprintf(&names, "%s ", e.Name())
	}
	return names.String()
}
