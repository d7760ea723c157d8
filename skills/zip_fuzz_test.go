package skills

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"path"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzLoadZip loads skill archives built from the fuzz bytes (a skill zip
// comes from a stranger) and, when the first byte says so, the bytes as an
// archive themselves. Properties:
//   - no panic, and a refusal names the archive;
//   - nothing comes out that the archive does not hold: every file of a
//     loaded skill is at a valid path below the root, is a regular file or
//     folder, and holds exactly the bytes of the entry of that name (no
//     lying header, no "..", no symlink, no second entry differing only in
//     case gets through);
//   - memory is bounded: the extracted bytes stay within maxZipTotalSize
//     and loading allocates at most a fixed amount plus a multiple of the
//     archive's size, so a bomb cannot get past the header checks.
//
// The loader never writes to disk (it extracts into memory), so "never
// writes outside" holds by construction; the path property above is what
// would break it if a caller ever wrote the files out.
func FuzzLoadZip(f *testing.F) {
	skill := []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\nbody\n")
	for _, seed := range [][]zipFuzzEntry{
		{{name: "SKILL.md", body: skill}},
		{{name: "SKILL.md", body: skill, flags: zfDeflate}, {name: "scripts/", flags: zfDir}, {name: "scripts/run.py", body: []byte("print(1)\n"), flags: zfExec}},
		{{name: "pdf/SKILL.md", body: skill}, {name: "__MACOSX/._x", body: []byte("x")}},
		{{name: "SKILL.md", body: skill}, {name: "skill.md", body: skill}}, // differ only in case
		{{name: "SKILL.md", body: skill}, {name: "../evil", body: []byte("x")}},
		{{name: "SKILL.md", body: skill}, {name: "link", body: []byte("/etc/passwd"), flags: zfSymlink}},
		{{name: "SKILL.md", body: skill}, {name: "big", body: bytes.Repeat([]byte("a"), 3000), flags: zfDeflate | zfLieSize}},
		{{name: "SKILL.md", body: skill}, {name: "a", body: []byte("1")}, {name: "a/b", body: []byte("2")}},
		{{name: "SKILL.md", body: skill}, {name: "d/", body: []byte("data in a folder"), flags: zfDir}},
		{{name: "SKILL.md", body: skill}, {name: "./x/./y", body: []byte("1")}, {name: "x//y", body: []byte("2")}},
	} {
		f.Add(encodeZipFuzz(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		archive, entries := data, map[string][]byte(nil)
		if len(data) > 0 && data[0]&1 == 0 {
			archive, entries = buildZipFuzz(t, data[1:])
		} else if len(data) > 0 {
			archive = data[1:]
		}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		s, err := LoadZipReader(bytes.NewReader(archive), int64(len(archive)), "pdf.zip", nil)
		goruntime.ReadMemStats(&after)
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(16<<20+2048*len(archive)); alloc > limit {
			t.Fatalf("loading a %d-byte archive allocated %d bytes, over %d", len(archive), alloc, limit)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pdf.zip") {
				t.Fatalf("error %q does not name the archive", err)
			}
			if s == nil {
				return
			}
			// A skill comes with an error only to report its problems.
			if _, ok := errors.AsType[*LoadError](err); !ok {
				t.Fatalf("a skill and the error %v, not a *LoadError", err)
			}
		}
		checkZipSkill(t, s, entries)
	})
}

// checkZipSkill walks a loaded skill's files: each must come from the
// archive unchanged (when entries is known) and within the bounds.
func checkZipSkill(t *testing.T, s *Skill, entries map[string][]byte) {
	t.Helper()
	fsys, closer, err := s.files.open()
	require.NoError(t, err, "opening the loaded skill")
	defer closer.Close()
	root := strings.TrimPrefix(strings.TrimPrefix(s.Dir, "pdf.zip"), "/")
	var total int64
	lower := map[string]string{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !fs.ValidPath(p) || strings.Contains(p, "\\") {
			t.Fatalf("loaded skill holds the path %q", p)
		}
		if other, dup := lower[strings.ToLower(p)]; dup {
			t.Errorf("loaded skill holds %q and %q, which differ only in case", other, p)
		}
		lower[strings.ToLower(p)] = p
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			t.Fatalf("%q has mode %v", p, d.Type())
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		total += int64(len(b))
		if entries != nil {
			want, ok := entries[path.Join(root, p)]
			if !ok {
				t.Fatalf("%q is in the skill but no entry of the archive is (entries %q)", p, keys(entries))
			}
			if !bytes.Equal(b, want) {
				t.Fatalf("%q holds %q, the archive %q", p, b, want)
			}
		}
		return nil
	})
	require.NoError(t, err, "walking the loaded skill")
	if total > maxZipTotalSize {
		t.Fatalf("extracted %d bytes, over maxZipTotalSize", total)
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// Flags of one fuzz entry.
const (
	zfDeflate = 1 << iota
	zfDir
	zfSymlink
	zfExec
	zfLieSize // declare a smaller uncompressed size than the data
	zfBadCRC
	zfFIFO
)

type zipFuzzEntry struct {
	name  string
	body  []byte
	flags byte
}

// encodeZipFuzz is the fuzz input that buildZipFuzz turns into entries:
// a leading 0 (build an archive), then per entry: flags, name length,
// name, body length (2 bytes), body.
func encodeZipFuzz(entries []zipFuzzEntry) []byte {
	b := []byte{0}
	for _, e := range entries {
		b = append(b, e.flags, byte(len(e.name)))
		b = append(b, e.name...)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(e.body)))
		b = append(b, e.body...)
	}
	return b
}

// buildZipFuzz builds an archive from the entries encoded in data and
// returns it with the contents of its regular, honest entries by cleaned
// name (what a correct loader may give back).
func buildZipFuzz(t *testing.T, data []byte) ([]byte, map[string][]byte) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	honest := map[string][]byte{}
	for len(data) >= 2 {
		flags, n := data[0], int(data[1])
		data = data[2:]
		name := string(data[:min(n, len(data))])
		data = data[min(n, len(data)):]
		var body []byte
		if len(data) >= 2 {
			m := int(binary.LittleEndian.Uint16(data))
			data = data[2:]
			body = data[:min(m, len(data))]
			data = data[min(m, len(data)):]
		}
		h := &zip.FileHeader{Name: name, Method: zip.Store}
		switch {
		case flags&zfDir != 0:
			h.SetMode(fs.ModeDir | 0o755)
		case flags&zfSymlink != 0:
			h.SetMode(fs.ModeSymlink | 0o777)
		case flags&zfFIFO != 0:
			h.SetMode(fs.ModeNamedPipe | 0o644)
		case flags&zfExec != 0:
			h.SetMode(0o755)
		default:
			h.SetMode(0o644)
		}
		stored := body
		if flags&zfDeflate != 0 {
			h.Method = zip.Deflate
			var z bytes.Buffer
			fw, _ := flate.NewWriter(&z, flate.BestSpeed)
			fw.Write(body)
			fw.Close()
			stored = z.Bytes()
		}
		h.CRC32 = crc32.ChecksumIEEE(body)
		h.CompressedSize64, h.UncompressedSize64 = uint64(len(stored)), uint64(len(body))
		lied := false
		if flags&zfLieSize != 0 && len(body) > 0 {
			h.UncompressedSize64, lied = uint64(len(body)/2), true
		}
		if flags&zfBadCRC != 0 {
			h.CRC32, lied = h.CRC32+1, true
		}
		if h.Mode().IsDir() {
			stored = nil // archive/zip writes no data for a folder; its header may still declare some
		}
		fw, err := w.CreateRaw(h)
		if err != nil {
			continue // archive/zip refuses some names and sizes itself
		}
		if _, err := fw.Write(stored); err != nil {
			t.Fatal(err)
		}
		if h.Mode().IsRegular() && !lied {
			honest[path.Clean(name)] = body
		}
	}
	if err := w.Close(); err != nil && !errors.Is(err, zip.ErrFormat) {
		t.Fatal(err)
	}
	return buf.Bytes(), honest
}
