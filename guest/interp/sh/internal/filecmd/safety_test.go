package filecmd

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// evilTar builds an archive that tries to escape the extraction
// directory every way GNU tar guards against: "..", absolute names, a
// symbolic link to a directory outside followed by a member through it,
// and a hard link to a file outside.
func evilTar(t testing.TB, outside string) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	file := func(name string) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
		tw.Write([]byte("x"))
	}
	file("../evil1")
	file("/abs/evil2")
	file("a/../../evil3")
	file("./x/y")
	tw.WriteHeader(&tar.Header{Name: "lnk", Typeflag: tar.TypeSymlink, Linkname: outside, Mode: 0o777})
	file("lnk/pwn")
	tw.WriteHeader(&tar.Header{Name: "hl", Typeflag: tar.TypeLink, Linkname: "../../etc/passwd"})
	require.NoError(t, tw.Close())
	return buf.Bytes()
}

// listTree returns every path under root, not following links.
func listTree(t testing.TB, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestTarExtractStaysInside(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.MkdirAll(filepath.Join(dir, "work", "out"), 0o755)
	os.Mkdir(outside, 0o755)
	os.WriteFile(filepath.Join(dir, "work", "evil.tar"), evilTar(t, outside), 0o644)
	r := run(t, filepath.Join(dir, "work"), "", "tar", "xf", "evil.tar", "-C", "out")
	// GNU tar 1.34 prints exactly these messages for this archive.
	want := "tar: Removing leading `../' from member names\n" +
		"tar: ../evil1: Member name contains '..'\n" +
		"tar: Removing leading `/' from member names\n" +
		"tar: Removing leading `a/../../' from member names\n" +
		"tar: a/../../evil3: Member name contains '..'\n" +
		"tar: lnk/pwn: Cannot open: Not a directory\n" +
		"tar: Removing leading `../../' from hard link targets\n" +
		"tar: hl: Cannot hard link to ‘etc/passwd’: No such file or directory\n" +
		"tar: Exiting with failure status due to previous errors\n"
	assert.Equal(t, want, r.stderr, "stderr")
	assert.Equal(t, 2, r.code, "exit code")
	assert.Empty(t, listTree(t, outside), "wrote outside the target")
	got := strings.Join(listTree(t, dir), " ")
	assert.Equal(t, "outside work work/evil.tar work/out work/out/abs work/out/abs/evil2 work/out/lnk work/out/x work/out/x/y", got, "tree after extraction")
	target, err := os.Readlink(filepath.Join(dir, "work/out/lnk"))
	if assert.NoError(t, err, "delayed link") {
		assert.Equal(t, outside, target, "delayed link")
	}
}

// TestTarExtractThroughExistingLink checks that a link already in the
// target directory that leads outside is not followed.
func TestTarExtractThroughExistingLink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.MkdirAll(filepath.Join(dir, "work", "out"), 0o755)
	os.Mkdir(outside, 0o755)
	os.Symlink(outside, filepath.Join(dir, "work", "out", "esc"))
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "esc/f", Mode: 0o644, Size: 1})
	tw.Write([]byte("x"))
	tw.Close()
	os.WriteFile(filepath.Join(dir, "work", "a.tar"), buf.Bytes(), 0o644)
	r := run(t, filepath.Join(dir, "work"), "", "tar", "-xf", "a.tar", "-C", "out")
	assert.Equal(t, 2, r.code, "exit code: %+v", r)
	assert.Contains(t, r.stderr, "esc/f: Cannot open: Not a directory", "stderr")
	assert.Empty(t, listTree(t, outside), "wrote outside the target")
}

func TestRmSymlinkToDirectory(t *testing.T) {
	dir := setup(t, fixture{"target/keep": "data", "link -> target": ""})
	assert.Equal(t, result{}, run(t, dir, "", "rm", "-rf", "link"))
	_, err := os.Lstat(filepath.Join(dir, "link"))
	assert.ErrorIs(t, err, os.ErrNotExist, "link still there")
	b, err := os.ReadFile(filepath.Join(dir, "target/keep"))
	if assert.NoError(t, err, "target's contents touched") {
		assert.Equal(t, "data", string(b), "target's contents touched")
	}
}

func TestCpIntoItself(t *testing.T) {
	dir := setup(t, fixture{"a/f": "x"})
	r := run(t, dir, "", "cp", "-r", "a", "a/b")
	want := result{"", "cp: cannot copy a directory, 'a', into itself, 'a/b'\n", 1}
	assert.Equal(t, want, r)
	_, err := os.Stat(filepath.Join(dir, "a/b"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a/b created")
}

func TestFindSymlinkLoop(t *testing.T) {
	dir := setup(t, fixture{"d/sub/f": "", "d/sub/loop -> ..": ""})
	r := run(t, dir, "", "find", "-L", "d")
	want := result{
		"d\nd/sub\nd/sub/f\n",
		"find: File system loop detected; ‘d/sub/loop’ is part of the same file system loop as ‘d’.\n",
		1,
	}
	assert.Equal(t, want, r)
	// Without -L the link is just a link.
	r = run(t, dir, "", "find", "d")
	assert.Equal(t, "d\nd/sub\nd/sub/f\nd/sub/loop\n", r.stdout, "without -L: %+v", r)
	assert.Zero(t, r.code, "without -L: %+v", r)
}

func TestRmRefusesDotAndRoot(t *testing.T) {
	dir := setup(t, fixture{"d/f": ""})
	r := run(t, dir, "", "rm", "-rf", ".", "d/..", "/")
	want := "rm: refusing to remove '.' or '..' directory: skipping '.'\n" +
		"rm: refusing to remove '.' or '..' directory: skipping 'd/..'\n" +
		"rm: it is dangerous to operate recursively on '/'\n" +
		"rm: use --no-preserve-root to override this failsafe\n"
	assert.Equal(t, want, r.stderr, "stderr")
	assert.Equal(t, 1, r.code, "exit code")
	_, err := os.Stat(filepath.Join(dir, "d/f"))
	assert.NoError(t, err)
}

// FuzzTarExtract extracts arbitrary bytes: tar must not panic and must
// not create anything outside its target directory.
func FuzzTarExtract(f *testing.F) {
	f.Add(evilTar(f, "/tmp"))
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "dir/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "dir/f", Mode: 0o644, Size: 2})
	tw.Write([]byte("hi"))
	tw.WriteHeader(&tar.Header{Name: "s", Typeflag: tar.TypeSymlink, Linkname: "dir"})
	tw.WriteHeader(&tar.Header{Name: "s/g", Mode: 0o644})
	tw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if hugeMember(data) {
			t.Skip("a member too large to write in a test")
		}
		dir := t.TempDir()
		// Archives may hold directories without write permission; open
		// them up so that the temporary directory can be removed.
		t.Cleanup(func() {
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if d != nil && d.IsDir() {
					os.Chmod(p, 0o755)
				}
				return nil
			})
		})
		work := filepath.Join(dir, "work")
		os.MkdirAll(filepath.Join(work, "out"), 0o755)
		os.WriteFile(filepath.Join(work, "a.tar"), data, 0o644)
		run(t, work, "", "tar", "xf", "a.tar", "-C", "out")
		for _, p := range listTree(t, dir) {
			if p != "work" && p != "work/a.tar" && p != "work/out" && !strings.HasPrefix(p, "work/out/") {
				t.Fatalf("created %s outside the target", p)
			}
		}
	})
}

// hugeMember reports whether an archive declares a member over 1 MiB
// (sparse members are expanded with zeros, so a few bytes of archive
// can stand for gigabytes of output).
func hugeMember(data []byte) bool {
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err != nil {
			return false
		}
		if hdr.Size > 1<<20 {
			return true
		}
	}
}
