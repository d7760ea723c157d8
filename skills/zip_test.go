package skills

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A zipTestEntry is one entry of an archive built by zipTestArchive.
type zipTestEntry struct {
	name string
	body string
	mode fs.FileMode // 0 for a regular 0o644 file
}

// zipTestArchive builds an archive in memory from entries, then lets raw
// (if non-nil) add hand-crafted entries.
func zipTestArchive(t testing.TB, entries []zipTestEntry, raw func(*zip.Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		f, err := w.CreateHeader(h)
		require.NoError(t, err)
		_, err = io.WriteString(f, e.body)
		require.NoError(t, err)
	}
	if raw != nil {
		raw(w)
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// zipTestRaw adds an entry whose header says whatever h says, with body
// written as is.
func zipTestRaw(t testing.TB, w *zip.Writer, h *zip.FileHeader, body []byte) {
	t.Helper()
	f, err := w.CreateRaw(h)
	require.NoError(t, err)
	_, err = f.Write(body)
	require.NoError(t, err)
}

func zipTestDeflate(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.DefaultCompression)
	require.NoError(t, err)
	_, err = fw.Write(data)
	require.NoError(t, err)
	require.NoError(t, fw.Close())
	return buf.Bytes()
}

// zipTestZeros returns a deflate stream of mib MiB of zeros without
// compressing them all: after a sync flush, the encoding of each further
// MiB of zeros is the same bytes, so the stream is built by repeating it.
// (Compressing 300 MiB takes tens of seconds under -race.)
func zipTestZeros(t testing.TB, mib int) []byte {
	t.Helper()
	p, err := zipTestZeroParts()
	require.NoError(t, err)
	out := append([]byte{}, p.first...)
	for range mib - 1 {
		out = append(out, p.step...)
	}
	return append(out, p.tail...)
}

// zipTestZeroParts compresses 3 MiB of zeros once per test binary.
var zipTestZeroParts = sync.OnceValues(func() (parts struct{ first, step, tail []byte }, err error) {
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.DefaultCompression)
	if err != nil {
		return parts, err
	}
	zero := make([]byte, 1<<20)
	var cuts []int
	for range 3 {
		if _, err := fw.Write(zero); err != nil {
			return parts, err
		}
		if err := fw.Flush(); err != nil {
			return parts, err
		}
		cuts = append(cuts, buf.Len())
	}
	if err := fw.Close(); err != nil {
		return parts, err
	}
	b := buf.Bytes()
	parts.first, parts.step, parts.tail = b[:cuts[0]], b[cuts[0]:cuts[1]], b[cuts[2]:]
	if !bytes.Equal(parts.step, b[cuts[1]:cuts[2]]) {
		return parts, errors.New("flate output for a flushed MiB of zeros is not stable")
	}
	return parts, nil
})

func TestZipTestZeros(t *testing.T) {
	// The construction is valid deflate: check it on a small size.
	n, err := io.Copy(io.Discard, flate.NewReader(bytes.NewReader(zipTestZeros(t, 5))))
	require.NoError(t, err)
	assert.Equal(t, int64(5<<20), n)
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func TestLoadZipRejectsUnsafe(t *testing.T) {
	skill := zipTestEntry{name: "SKILL.md", body: skillMD("pdf", "Fill PDF forms.")}
	bomb := zipTestZeros(t, 300)
	zeroCRC := crc32.NewIEEE()
	zero := make([]byte, 1<<20)
	for range 300 {
		zeroCRC.Write(zero)
	}

	tests := []struct {
		name    string
		entries []zipTestEntry
		raw     func(*testing.T, *zip.Writer)
		entry   string // the entry the message must name
		reason  string // part of the message
	}{
		{name: "zip-slip", entries: []zipTestEntry{skill, {name: "../x", body: "x"}},
			entry: "../x", reason: "leads outside the archive"},
		{name: "nested zip-slip", entries: []zipTestEntry{skill, {name: "a/../../x", body: "x"}},
			entry: "a/../../x", reason: "leads outside the archive"},
		{name: "dot-dot inside", entries: []zipTestEntry{skill, {name: "a/../b", body: "x"}},
			entry: "a/../b", reason: "leads outside the archive"},
		{name: "absolute", entries: []zipTestEntry{skill, {name: "/etc/passwd", body: "x"}},
			entry: "/etc/passwd", reason: "absolute path"},
		{name: "backslash", entries: []zipTestEntry{skill, {name: `..\x`, body: "x"}},
			entry: `..\x`, reason: "backslash"},
		{name: "drive letter", entries: []zipTestEntry{skill, {name: "C:/x", body: "x"}},
			entry: "C:/x", reason: "drive-letter"},
		{name: "drive-relative", entries: []zipTestEntry{skill, {name: "c:x", body: "x"}},
			entry: "c:x", reason: "drive-letter"},
		{name: "empty name", entries: []zipTestEntry{skill, {name: "", body: "x"}},
			entry: "", reason: "empty name"},
		{name: "NUL", entries: []zipTestEntry{skill, {name: "a\x00.md", body: "x"}},
			entry: "a\x00.md", reason: "NUL"},
		{name: "too deep", entries: []zipTestEntry{skill, {name: strings.Repeat("d/", maxZipDepth) + "x", body: "x"}},
			entry: strings.Repeat("d/", maxZipDepth) + "x", reason: "nested more than"},
		{name: "symlink", entries: []zipTestEntry{skill, {name: "link", body: "../../etc/passwd", mode: fs.ModeSymlink | 0o777}},
			entry: "link", reason: "symlink"},
		{name: "symlink inside", entries: []zipTestEntry{skill, {name: "scripts/ok", body: "run.py", mode: fs.ModeSymlink | 0o777}},
			entry: "scripts/ok", reason: "symlink"},
		{name: "named pipe", entries: []zipTestEntry{skill, {name: "fifo", mode: fs.ModeNamedPipe | 0o644}},
			entry: "fifo", reason: "special file"},
		{name: "duplicate", entries: []zipTestEntry{skill, {name: "SKILL.md", body: skillMD("evil", "Other.")}},
			entry: "SKILL.md", reason: "duplicate"},
		{name: "duplicate after cleaning", entries: []zipTestEntry{skill, {name: "a/b", body: "1"}, {name: "a//b", body: "2"}},
			entry: "a//b", reason: `duplicate of entry "a/b"`},
		{name: "dot duplicate", entries: []zipTestEntry{skill, {name: "./SKILL.md", body: "2"}},
			entry: "./SKILL.md", reason: "duplicate"},
		{name: "file and directory", entries: []zipTestEntry{skill, {name: "a", body: "1"}, {name: "a/b", body: "2"}},
			entry: "a/b", reason: `inside entry "a", which is a file`},
		{name: "too many files", entries: []zipTestEntry{skill},
			raw: func(t *testing.T, w *zip.Writer) {
				for i := range maxZipFiles {
					_, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%05d", i), Method: zip.Store})
					require.NoError(t, err)
				}
			},
			entry: fmt.Sprintf("f%05d", maxZipFiles-1), reason: "more than the limit of 10000"},
		{name: "bomb", entries: []zipTestEntry{skill},
			raw: func(t *testing.T, w *zip.Writer) {
				zipTestRaw(t, w, &zip.FileHeader{Name: "zeros.bin", Method: zip.Deflate, CRC32: zeroCRC.Sum32(),
					CompressedSize64: uint64(len(bomb)), UncompressedSize64: 300 << 20}, bomb)
			},
			entry: "zeros.bin", reason: "over the 64 MiB limit"},
		{name: "ratio", entries: []zipTestEntry{skill},
			raw: func(t *testing.T, w *zip.Writer) {
				body := zipTestZeros(t, 2)
				zipTestRaw(t, w, &zip.FileHeader{Name: "zeros.bin", Method: zip.Deflate,
					CompressedSize64: uint64(len(body)), UncompressedSize64: 2 << 20}, body)
			},
			entry: "zeros.bin", reason: "decompression bomb"},
		{name: "total size", entries: []zipTestEntry{skill},
			raw: func(t *testing.T, w *zip.Writer) {
				// Headers only: rejected before any body is read.
				for i := range 5 {
					zipTestRaw(t, w, &zip.FileHeader{Name: fmt.Sprintf("big%d", i), Method: zip.Store,
						CompressedSize64: 60 << 20, UncompressedSize64: 60 << 20}, []byte("x"))
				}
			},
			entry: "big4", reason: "total uncompressed size"},
		{name: "directory with data", entries: []zipTestEntry{skill},
			raw: func(t *testing.T, w *zip.Writer) {
				// A directory by its mode bits: the writer refuses data
				// for a name ending in "/".
				h := &zip.FileHeader{Name: "dir", Method: zip.Store,
					CompressedSize64: 3, UncompressedSize64: 3, CRC32: crc32.ChecksumIEEE([]byte("abc"))}
				h.SetMode(fs.ModeDir | 0o755)
				zipTestRaw(t, w, h, []byte("abc"))
			},
			entry: "dir", reason: "directory entry declares 3 bytes"},
		{name: "lying header", entries: []zipTestEntry{skill},
			raw: func(t *testing.T, w *zip.Writer) {
				real := bytes.Repeat([]byte("payload "), 1000)
				body := zipTestDeflate(t, real)
				zipTestRaw(t, w, &zip.FileHeader{Name: "references/guide.md", Method: zip.Deflate,
					CRC32: crc32.ChecksumIEEE(real), CompressedSize64: uint64(len(body)), UncompressedSize64: 100}, body)
			},
			entry: "references/guide.md", reason: "more data than the 100 bytes its header declares"},
		{name: "lying stored header", entries: []zipTestEntry{skill},
			raw: func(t *testing.T, w *zip.Writer) {
				zipTestRaw(t, w, &zip.FileHeader{Name: "a.txt", Method: zip.Store,
					CompressedSize64: 10, UncompressedSize64: 4}, []byte("0123456789"))
			},
			entry: "a.txt", reason: "more data than the 4 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := zipTestArchive(t, tt.entries, func(w *zip.Writer) {
				if tt.raw != nil {
					tt.raw(t, w)
				}
			})
			r := &countingReaderAt{r: bytes.NewReader(data)}
			start := time.Now()
			s, err := LoadZipReader(r, int64(len(data)), "pdf.zip", nil)
			elapsed := time.Since(start)
			require.Error(t, err)
			t.Log(err)
			assert.Nil(t, s)
			assert.ErrorIs(t, err, errUnsafeZip)
			assert.Contains(t, err.Error(), "pdf.zip: entry "+quoteEntry(tt.entry)+": ")
			assert.Contains(t, err.Error(), tt.reason)
			assert.Less(t, elapsed, 5*time.Second)
			if tt.name == "bomb" {
				// Rejected from the central directory alone: no byte of
				// the ~300 KB body was read, let alone decompressed.
				assert.Less(t, r.n.Load(), int64(len(bomb)/4), "bytes read")
			}
		})
	}
}

func TestLoadZipBadArchive(t *testing.T) {
	skill := zipTestEntry{name: "SKILL.md", body: skillMD("pdf", "Fill PDF forms.")}
	tests := []struct {
		name string
		data []byte
		is   error
	}{
		{name: "not a zip", data: []byte("this is not a zip archive, just text"), is: zip.ErrFormat},
		{name: "empty file", data: nil, is: zip.ErrFormat},
		{name: "bad checksum", data: zipTestArchive(t, []zipTestEntry{skill}, func(w *zip.Writer) {
			zipTestRaw(t, w, &zip.FileHeader{Name: "a.txt", Method: zip.Store,
				CRC32: 12345, CompressedSize64: 5, UncompressedSize64: 5}, []byte("hello"))
		}), is: zip.ErrChecksum},
		{name: "truncated data", data: zipTestArchive(t, []zipTestEntry{skill}, func(w *zip.Writer) {
			zipTestRaw(t, w, &zip.FileHeader{Name: "a.txt", Method: zip.Store,
				CRC32: crc32.ChecksumIEEE([]byte("hello")), CompressedSize64: 5, UncompressedSize64: 50}, []byte("hello"))
		}), is: io.ErrUnexpectedEOF},
		{name: "unknown method", data: zipTestArchive(t, []zipTestEntry{skill}, func(w *zip.Writer) {
			zipTestRaw(t, w, &zip.FileHeader{Name: "a.txt", Method: 99,
				CompressedSize64: 5, UncompressedSize64: 5}, []byte("hello"))
		}), is: zip.ErrAlgorithm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadZipReader(bytes.NewReader(tt.data), int64(len(tt.data)), "pdf.zip", nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.NotErrorIs(t, err, errUnsafeZip)
			assert.True(t, strings.HasPrefix(err.Error(), "pdf.zip: "), "error %q does not name the archive", err)
		})
	}
}

func TestLoadZipTopLevel(t *testing.T) {
	data := zipTestArchive(t, []zipTestEntry{
		{name: "SKILL.md", body: skillMD("pdf", "Fill PDF forms.")},
		{name: "references/guide.md", body: "# Guide\n"},
		{name: "scripts/", mode: fs.ModeDir | 0o755},
		{name: "scripts/run.sh", body: "echo hi\n", mode: 0o755},
	}, nil)

	s, err := LoadZipReader(bytes.NewReader(data), int64(len(data)), "pdf.zip", nil)
	require.NoError(t, err)
	assert.Equal(t, "pdf", s.Name)
	assert.Equal(t, "Fill PDF forms.", s.Description)
	assert.Equal(t, "pdf.zip", s.Dir)
	assert.Equal(t, "SKILL.md", s.FileName)
	assert.Equal(t, "pdf.zip/SKILL.md", s.Location)
	assert.Nil(t, s.Manifest)
	assert.Empty(t, s.Problems)

	guide, err := s.ReadResource("references/guide.md")
	require.NoError(t, err)
	assert.Equal(t, "# Guide\n", string(guide))

	fsys, done, err := s.files.open()
	require.NoError(t, err)
	defer done.Close()
	entries, err := fs.ReadDir(fsys, ".")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"SKILL.md", "references", "scripts"}, names)
	fi, err := fs.Stat(fsys, "references") // synthesized: no entry of its own
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	fi, err = fs.Stat(fsys, "scripts/run.sh")
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o555), fi.Mode())
	_, err = fs.Stat(fsys, "../pdf.zip")
	assert.ErrorIs(t, err, fs.ErrInvalid)
	require.NoError(t, fstest.TestFS(fsys, "SKILL.md", "references/guide.md", "scripts/run.sh"))
}

func TestLoadZipFile(t *testing.T) {
	data := zipTestArchive(t, []zipTestEntry{
		{name: "SKILL.md", body: skillMD("pdf", "Fill PDF forms.")},
	}, nil)
	p := filepath.Join(t.TempDir(), "pdf.zip")
	require.NoError(t, os.WriteFile(p, data, 0o644))

	for name, load := range map[string]func(string, *LoadOptions) (*Skill, error){"LoadZip": LoadZip, "Load": Load} {
		t.Run(name, func(t *testing.T) {
			s, err := load(p, nil)
			require.NoError(t, err)
			assert.Equal(t, "pdf", s.Name)
			assert.Equal(t, p, s.Dir)
			assert.Equal(t, p+"/SKILL.md", s.Location)
			assert.Empty(t, s.Problems)
		})
	}

	_, err := LoadZip(filepath.Join(t.TempDir(), "missing.zip"), nil)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestLoadZipFolder(t *testing.T) {
	data := zipTestArchive(t, []zipTestEntry{
		{name: "pdf/", mode: fs.ModeDir | 0o755},
		{name: "pdf/SKILL.md", body: skillMD("pdf", "Fill PDF forms.")},
		{name: "pdf/references/guide.md", body: "# Guide\n"},
		// What the macOS Finder adds: ignored.
		{name: "__MACOSX/pdf/._SKILL.md", body: "\x00\x05\x16\x07"},
	}, nil)

	s, err := LoadZipReader(bytes.NewReader(data), int64(len(data)), "bundle.zip", nil)
	require.NoError(t, err)
	assert.Equal(t, "pdf", s.Name)
	assert.Equal(t, "bundle.zip/pdf", s.Dir)
	assert.Equal(t, "bundle.zip/pdf/SKILL.md", s.Location)
	assert.Empty(t, s.Problems, "the folder name, not the archive name, must match")

	files, _, err := s.Files()
	require.NoError(t, err)
	assert.Equal(t, []string{"SKILL.md", "references/guide.md"}, files)
}

func TestLoadZipNameMismatch(t *testing.T) {
	data := zipTestArchive(t, []zipTestEntry{
		{name: "SKILL.md", body: skillMD("pdf", "Fill PDF forms.")},
	}, nil)
	load := func(o *LoadOptions) (*Skill, error) {
		return LoadZipReader(bytes.NewReader(data), int64(len(data)), "pdf-v2.zip", o)
	}

	s, err := load(nil)
	require.NoError(t, err)
	require.Len(t, s.Problems, 1)
	assert.Equal(t, codeNameDirMismatch, s.Problems[0].Code)
	assert.Equal(t, Warning, s.Problems[0].Severity)
	assert.Contains(t, s.Problems[0].Message, `"pdf-v2"`)

	_, err = load(&LoadOptions{Strict: true})
	le, ok := errors.AsType[*LoadError](err)
	require.True(t, ok, "want *LoadError, got %v", err)
	require.Len(t, le.Problems.Errors(), 1)
	assert.Equal(t, codeNameDirMismatch, le.Problems.Errors()[0].Code)

	s, err = load(&LoadOptions{Strict: true, DirName: "pdf"})
	require.NoError(t, err)
	assert.Empty(t, s.Problems)
}

func TestLoadZipNoRoot(t *testing.T) {
	md := skillMD("pdf", "Fill PDF forms.")
	tests := map[string][]zipTestEntry{
		"empty":           nil,
		"no SKILL.md":     {{name: "README.md", body: "hi"}},
		"nested too deep": {{name: "a/pdf/SKILL.md", body: md}},
		"two folders":     {{name: "pdf/SKILL.md", body: md}, {name: "doc/SKILL.md", body: md}},
		"folder and file": {{name: "pdf/SKILL.md", body: md}, {name: "README.md", body: "hi"}},
		"SKILL.md is dir": {{name: "SKILL.md/", mode: fs.ModeDir | 0o755}},
	}
	for name, entries := range tests {
		t.Run(name, func(t *testing.T) {
			data := zipTestArchive(t, entries, nil)
			_, err := LoadZipReader(bytes.NewReader(data), int64(len(data)), "pdf.zip", nil)
			le, ok := errors.AsType[*LoadError](err)
			require.True(t, ok, "want *LoadError, got %v", err)
			assert.Equal(t, "pdf.zip", le.Dir)
			require.Len(t, le.Problems, 1)
			assert.Equal(t, codeSkillFileMissing, le.Problems[0].Code)
			assert.Equal(t, Error, le.Problems[0].Severity)
			assert.Equal(t, "pdf.zip: no SKILL.md at the top of the archive or in a single top-level folder", err.Error())
		})
	}
}

func TestCheckZipName(t *testing.T) {
	tests := []struct{ in, clean string }{
		{"SKILL.md", "SKILL.md"},
		{"a/b/", "a/b"},
		{"./a//b", "a/b"},
		{"./", "."},
		{"ab:c", "ab:c"}, // not a drive letter
		{"1:x", "1:x"},
		{"..a/b..", "..a/b.."},
	}
	for _, tt := range tests {
		clean, reason := checkZipName(tt.in)
		assert.Empty(t, reason, tt.in)
		assert.Equal(t, tt.clean, clean, tt.in)
	}
	_, reason := checkZipName(strings.Repeat("a", maxZipNameLen+1))
	assert.Contains(t, reason, "longer than")
}

func TestMemFS(t *testing.T) {
	m := newMemFS()
	m.addFile("a/b/c.txt", []byte("c"), 0o444, time.Time{})
	m.addFile("a/d.txt", []byte("d"), 0o444, time.Time{})
	m.addDir("e", time.Time{})
	m.index()
	require.NoError(t, fstest.TestFS(m, "a/b/c.txt", "a/d.txt", "e"))

	data, err := m.ReadFile("a/d.txt")
	require.NoError(t, err)
	data[0] = 'x' // a copy: the file is unchanged
	data, err = m.ReadFile("a/d.txt")
	require.NoError(t, err)
	assert.Equal(t, "d", string(data))

	_, err = m.Open("a/../a/d.txt")
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, err = m.ReadFile("missing")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = m.ReadDir("a/d.txt")
	assert.Error(t, err)
	_, err = m.ReadFile("a")
	assert.Error(t, err)
}
