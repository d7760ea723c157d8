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
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/internal/skillname"
	"time"
)

// Zip bounds. A skill archive comes from an untrusted author, so every
// limit is checked against the central directory before any entry is
// decompressed, and again against the bytes that actually come out.
const (
	// maxZipFiles is the most entries an archive may hold.
	maxZipFiles = 10_000
	// maxZipTotalSize bounds the sum of the entries' uncompressed sizes.
	maxZipTotalSize = 256 << 20
	// maxZipFileSize bounds the uncompressed size of one entry.
	maxZipFileSize = 64 << 20
	// maxZipRatio is the uncompressed/compressed ratio beyond which an
	// entry larger than 1 MiB is treated as a decompression bomb. Ordinary
	// text compresses 3–10×; deflate cannot exceed about 1032×.
	maxZipRatio = 200
)

const (
	// zipRatioFloor is the uncompressed size below which the ratio is not
	// checked: a small file of repeated bytes is harmless.
	zipRatioFloor = 1 << 20
	// maxZipNameLen and maxZipDepth bound entry names, so that the work of
	// synthesizing parent directories stays linear in the entry count.
	maxZipNameLen = 1024
	maxZipDepth   = 64
	// macOSMetadataDir is the folder of AppleDouble files that the macOS
	// Finder adds beside the folder it compresses. It is validated like any
	// other entry but ignored when finding the skill root and not extracted.
	macOSMetadataDir = "__MACOSX"
)

// errUnsafeZip is wrapped by every error that rejects an archive as
// unsafe: an entry name that is absolute or leads outside the archive,
// duplicate or conflicting names, a symlink or other special entry, too
// many entries, sizes over the limits, a decompression bomb, or an entry
// holding more data than its header declares. The error's message names
// the archive and the entry. Match it with errors.Is.
var errUnsafeZip = errors.New("unsafe zip archive")

// An unsafeZipError rejects one archive, usually because of one entry.
type unsafeZipError struct {
	archive string
	entry   string // raw name of the entry at fault
	reason  string
}

func (e *unsafeZipError) Error() string {
	return fmt.Sprintf("%s: entry %s: %s", e.archive, quoteEntry(e.entry), e.reason)
}

func (e *unsafeZipError) Unwrap() error { return errUnsafeZip }

// quoteEntry quotes an entry name for a message, shortening absurdly long
// ones so that an error stays readable.
func quoteEntry(name string) string {
	const limit = 200
	if len(name) > limit {
		return fmt.Sprintf("%q…", name[:limit])
	}
	return fmt.Sprintf("%q", name)
}

// LoadZip loads the skill in the zip archive at path, as [LoadZipReader]
// does. Problems and [Skill.Dir] name the archive by path as given.
//
// LoadZip is safe for concurrent use.
func LoadZip(path string, o *LoadOptions) (*Skill, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "load", Path: path, Err: errors.New("is a directory, not a zip archive")}
	}
	s, err := LoadZipReader(f, fi.Size(), path, o)
	if s != nil {
		// The archive is the skill's place, as a folder is.
		s.place = path
		if abs, aerr := filepath.Abs(path); aerr == nil {
			s.place = abs
			if real, lerr := filepath.EvalSymlinks(abs); lerr == nil {
				s.place = real
			}
		}
	}
	return s, err
}

// LoadZipReader loads the skill in the zip archive of the given size read
// from r. name is the archive's name, used in messages and as [Skill.Dir].
//
// The whole archive is validated before any entry is decompressed (see
// [errUnsafeZip] and the Max* limits), then extracted into memory, so the
// returned Skill does not hold r. Symlink entries are rejected outright,
// whatever their target: a skill has no need for them, and following one
// safely would mean resolving it inside the archive.
//
// The skill root is the top of the archive when it holds SKILL.md; the
// skill's name must then match name without its extension ("pdf" for
// "pdf.zip"). Otherwise, when every entry lies in one top-level folder
// holding SKILL.md, that folder is the root and its name is the one to
// match, and Skill.Dir is name + "/" + folder. A "__MACOSX" folder is
// ignored. Anything else is a [*LoadError] with code
// [codeSkillFileMissing].
//
// LoadZipReader is safe for concurrent use if r is.
func LoadZipReader(r io.ReaderAt, size int64, name string, o *LoadOptions) (*Skill, error) {
	label := name
	if label == "" {
		label = "zip archive"
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		// ErrInsecurePath (under GODEBUG=zipinsecurepath=0) comes with a
		// usable reader; checkZip reports the offending entry itself.
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	entries, err := checkZip(zr.File, label, maxZipFiles)
	if err != nil {
		return nil, err
	}

	root, ok := zipRoot(entries)
	if !ok {
		return nil, &LoadError{Dir: name, Problems: Problems{{
			File: label, Code: codeSkillFileMissing, Severity: Error,
			Message: "no SKILL.md at the top of the archive or in a single top-level folder",
		}}}
	}
	fsys, err := extractZip(entries, root, label)
	if err != nil {
		return nil, err
	}

	display, dirName := name, zipBaseName(name)
	if root != "." {
		display, dirName = joinDisplay(name, root), root
	}
	return load(fsSource{fsys}, display, dirName, func(n string) string { return joinDisplay(display, n) }, o)
}

// zipBaseName is the archive's file name without its extension.
func zipBaseName(name string) string {
	if name == "" {
		return ""
	}
	b := filepath.Base(name)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// A zipEntry is an archive entry that passed checkZip.
type zipEntry struct {
	f     *zip.File
	clean string // cleaned slash path; "." only for a "./" directory
	dir   bool
}

// checkZip validates every entry's header, reading no content: names,
// types, the entry count (at most maxFiles) and the declared sizes.
func checkZip(files []*zip.File, archive string, maxFiles int) ([]zipEntry, error) {
	reject := func(entry, format string, args ...any) error {
		return &unsafeZipError{archive: archive, entry: entry, reason: fmt.Sprintf(format, args...)}
	}
	if len(files) > maxFiles {
		return nil, reject(files[maxFiles].Name, "archive has %d entries, more than the limit of %d", len(files), maxFiles)
	}
	entries := make([]zipEntry, 0, len(files))
	seen := make(map[string]int, len(files)) // cleaned name → index in entries
	// Names that differ only in case or normalisation ("SKILL.md" and
	// "skill.md", "é" composed and not) are one file on macOS and Windows.
	folded := make(map[string]int, len(files))
	var total uint64
	for _, f := range files {
		clean, reason := checkZipName(f.Name)
		if reason != "" {
			return nil, reject(f.Name, "%s", reason)
		}
		mode := f.Mode()
		dir := mode.IsDir()
		switch {
		case mode&fs.ModeSymlink != 0:
			return nil, reject(f.Name, "symlink entries are not allowed")
		case !dir && !mode.IsRegular():
			return nil, reject(f.Name, "special file (mode %v) is not allowed", mode.Type())
		case clean == "." && !dir:
			return nil, reject(f.Name, "file name is empty after cleaning")
		}
		if clean == "." {
			continue // "./": the archive root itself
		}
		if i, dup := seen[clean]; dup {
			return nil, reject(f.Name, "duplicate of entry %s", quoteEntry(entries[i].f.Name))
		}
		if i, dup := folded[skillname.Key(clean)]; dup {
			return nil, reject(f.Name, "differs from entry %s only in case or Unicode form; unpacked on a case-insensitive file system one would overwrite the other (and the skill file must be exactly SKILL.md)", quoteEntry(entries[i].f.Name))
		}
		seen[clean] = len(entries)
		folded[skillname.Key(clean)] = len(entries)

		u := f.UncompressedSize64
		switch {
		case dir && u != 0:
			return nil, reject(f.Name, "directory entry declares %d bytes of data", u)
		case dir:
		case u > maxZipFileSize:
			return nil, reject(f.Name, "uncompressed size %d bytes is over the %d MiB limit for one file", u, maxZipFileSize>>20)
		case u > zipRatioFloor && (f.CompressedSize64 == 0 || u/f.CompressedSize64 > maxZipRatio):
			return nil, reject(f.Name, "compression ratio %d:1 is over %d:1, treated as a decompression bomb", u/max(f.CompressedSize64, 1), maxZipRatio)
		}
		total += u
		if total > maxZipTotalSize {
			return nil, reject(f.Name, "total uncompressed size reaches %d bytes, over the %d MiB limit", total, maxZipTotalSize>>20)
		}
		if !dir {
			if f.Flags&0x1 != 0 {
				return nil, fmt.Errorf("%s: entry %s: encrypted entries are not supported", archive, quoteEntry(f.Name))
			}
			if f.Method != zip.Store && f.Method != zip.Deflate {
				return nil, fmt.Errorf("%s: entry %s: compression method %d: %w", archive, quoteEntry(f.Name), f.Method, zip.ErrAlgorithm)
			}
		}
		entries = append(entries, zipEntry{f: f, clean: clean, dir: dir})
	}
	// No file may also be a directory: "a" and "a/b" cannot both be files.
	// Stopping at the first explicit directory is enough, since that
	// directory's own check covers its ancestors.
	for _, e := range entries {
		for p := path.Dir(e.clean); p != "."; p = path.Dir(p) {
			i, ok := seen[p]
			if !ok {
				continue
			}
			if !entries[i].dir {
				return nil, reject(e.f.Name, "lies inside entry %s, which is a file", quoteEntry(entries[i].f.Name))
			}
			break
		}
	}
	return entries, nil
}

// checkZipName returns the cleaned form of an entry name, or why the name
// is refused. Directory names keep no trailing slash once cleaned.
func checkZipName(name string) (clean, reason string) {
	switch {
	case name == "":
		return "", "empty name"
	case len(name) > maxZipNameLen:
		return "", fmt.Sprintf("name is longer than %d bytes", maxZipNameLen)
	case strings.IndexByte(name, 0) >= 0:
		return "", "name contains a NUL byte"
	case strings.Contains(name, `\`):
		return "", `name contains a backslash (zip paths use "/"; "\" could be a Windows separator)`
	case name[0] == '/':
		return "", "absolute path leads outside the archive"
	case len(name) >= 2 && name[1] == ':' && ('a' <= name[0]|0x20 && name[0]|0x20 <= 'z'):
		return "", "drive-letter path leads outside the archive"
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == ".." {
			return "", "path leads outside the archive"
		}
	}
	clean = path.Clean(name)
	if clean != "." && !fs.ValidPath(clean) {
		return "", "invalid path"
	}
	if strings.Count(clean, "/") >= maxZipDepth {
		return "", fmt.Sprintf("path is nested more than %d levels deep", maxZipDepth)
	}
	return clean, ""
}

// zipRoot finds the skill root among checked entries: "." when SKILL.md is
// at the top, else the one top-level folder, if it holds SKILL.md.
func zipRoot(entries []zipEntry) (string, bool) {
	files := make(map[string]bool)
	tops := make(map[string]bool)
	for _, e := range entries {
		if !e.dir {
			files[e.clean] = true
		}
		top, _, _ := strings.Cut(e.clean, "/")
		if top != macOSMetadataDir {
			tops[top] = true
		}
	}
	for _, n := range skillFileNames {
		if files[n] {
			return ".", true
		}
	}
	if len(tops) != 1 {
		return "", false
	}
	for top := range tops {
		for _, n := range skillFileNames {
			if files[top+"/"+n] {
				return top, true
			}
		}
	}
	return "", false
}

// extractZip decompresses the entries under root into a memFS rooted
// there. It trusts no header: each entry is read through a limit of its
// declared size plus one byte, and the running total is bounded again.
func extractZip(entries []zipEntry, root, archive string) (memFS, error) {
	m := newMemFS()
	var total int64
	for _, e := range entries {
		rel := e.clean
		if root != "." {
			var ok bool
			if rel, ok = strings.CutPrefix(e.clean, root+"/"); !ok {
				continue // the root folder's own entry
			}
		} else if top, _, _ := strings.Cut(rel, "/"); top == macOSMetadataDir {
			continue
		}
		if e.dir {
			m.addDir(rel, e.f.Modified)
			continue
		}
		data, err := readZipEntry(e.f, archive)
		if err != nil {
			return nil, err
		}
		total += int64(len(data))
		if total > maxZipTotalSize {
			return nil, &unsafeZipError{archive: archive, entry: e.f.Name,
				reason: fmt.Sprintf("total extracted size is over the %d MiB limit", maxZipTotalSize>>20)}
		}
		perm := fs.FileMode(0o444)
		if e.f.Mode()&0o111 != 0 {
			perm |= 0o111
		}
		m.addFile(rel, data, perm, e.f.Modified)
	}
	m.index()
	return m, nil
}

// readZipEntry decompresses one entry itself, rather than through
// zip.File.Open, so that the size limit below does not depend on
// archive/zip's internal checks.
func readZipEntry(f *zip.File, archive string) ([]byte, error) {
	wrap := func(err error) error {
		return fmt.Errorf("%s: entry %s: %w", archive, quoteEntry(f.Name), err)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, wrap(err)
	}
	var rc io.Reader = raw
	if f.Method == zip.Deflate {
		fr := flate.NewReader(raw)
		defer fr.Close()
		rc = fr
	}
	declared := int64(f.UncompressedSize64) // ≤ maxZipFileSize, checked
	data, err := io.ReadAll(io.LimitReader(rc, declared+1))
	if int64(len(data)) > declared {
		return nil, &unsafeZipError{archive: archive, entry: f.Name,
			reason: fmt.Sprintf("holds more data than the %d bytes its header declares", declared)}
	}
	if err != nil {
		return nil, wrap(err)
	}
	if int64(len(data)) < declared {
		return nil, wrap(fmt.Errorf("%w: %d bytes of data, %d declared", io.ErrUnexpectedEOF, len(data), declared))
	}
	if crc32.ChecksumIEEE(data) != f.CRC32 {
		return nil, wrap(zip.ErrChecksum)
	}
	return data, nil
}

// A memFS is a read-only in-memory file system holding an extracted
// archive, keyed by cleaned slash path ("." is the root). Parent
// directories are synthesized. It is immutable once built and safe for
// concurrent use.
type memFS map[string]*memNode

var (
	_ fs.ReadFileFS = memFS(nil)
	_ fs.ReadDirFS  = memFS(nil)
	_ fs.StatFS     = memFS(nil)
)

// A memNode is one file or directory; it is its own fs.FileInfo and
// fs.DirEntry.
type memNode struct {
	name    string
	data    []byte
	mode    fs.FileMode
	modTime time.Time
	entries []fs.DirEntry // a directory's children, sorted by name
}

func newMemFS() memFS {
	return memFS{".": {name: ".", mode: fs.ModeDir | 0o555}}
}

func (m memFS) addFile(name string, data []byte, perm fs.FileMode, mod time.Time) {
	m[name] = &memNode{name: path.Base(name), data: data, mode: perm, modTime: mod}
	m.addDir(path.Dir(name), time.Time{})
}

// addDir adds directory name and any missing parents. Names were checked
// by checkZip, so no parent is a file.
func (m memFS) addDir(name string, mod time.Time) {
	for ; ; name = path.Dir(name) {
		if n, ok := m[name]; ok {
			if !mod.IsZero() {
				n.modTime = mod
			}
			return
		}
		m[name] = &memNode{name: path.Base(name), mode: fs.ModeDir | 0o555, modTime: mod}
		mod = time.Time{}
	}
}

// index fills in each directory's sorted children.
func (m memFS) index() {
	for name, n := range m {
		if name != "." {
			parent := m[path.Dir(name)]
			parent.entries = append(parent.entries, n)
		}
	}
	for _, n := range m {
		slices.SortFunc(n.entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
}

func (m memFS) lookup(op, name string) (*memNode, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

func (m memFS) Open(name string) (fs.File, error) {
	n, err := m.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.IsDir() {
		return &memDir{node: n, path: name}, nil
	}
	return &memFile{node: n, Reader: bytes.NewReader(n.data)}, nil
}

// ReadFile returns a copy of the file's contents, as fs.ReadFileFS
// requires.
func (m memFS) ReadFile(name string) ([]byte, error) {
	n, err := m.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	return bytes.Clone(n.data), nil
}

func (m memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := m.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return slices.Clone(n.entries), nil
}

func (m memFS) Stat(name string) (fs.FileInfo, error) {
	n, err := m.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return n, nil
}

func (n *memNode) Name() string               { return n.name }
func (n *memNode) Size() int64                { return int64(len(n.data)) }
func (n *memNode) Mode() fs.FileMode          { return n.mode }
func (n *memNode) ModTime() time.Time         { return n.modTime }
func (n *memNode) IsDir() bool                { return n.mode.IsDir() }
func (n *memNode) Sys() any                   { return nil }
func (n *memNode) Type() fs.FileMode          { return n.mode.Type() }
func (n *memNode) Info() (fs.FileInfo, error) { return n, nil }
func (n *memNode) String() string             { return fs.FormatFileInfo(n) }

// A memFile is an open regular file: also an io.Seeker and io.ReaderAt.
type memFile struct {
	node *memNode
	*bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.node, nil }
func (f *memFile) Close() error               { return nil }

// A memDir is an open directory.
type memDir struct {
	node *memNode
	path string
	off  int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return d.node, nil }
func (d *memDir) Close() error               { return nil }

func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errors.New("is a directory")}
}

func (d *memDir) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.node.entries[d.off:]
	if count <= 0 {
		d.off += len(rest)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	count = min(count, len(rest))
	d.off += count
	return slices.Clone(rest[:count]), nil
}
