package yamlmod

import (
	"bytes"
	"io"
	"io/fs"
	"slices"
	"time"
)

// A memFS is a flat folder in memory: file names to contents. It is the
// folder of a skill made from a skill.yaml or a tool.yaml, holding the
// generated SKILL.md and skill.toml. It is immutable once made and safe
// for concurrent use.
type memFS map[string][]byte

var (
	_ fs.ReadDirFS = memFS(nil)
	_ fs.StatFS    = memFS(nil)
)

func (m memFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &memDir{m: m}, nil
	}
	data, err := m.lookup("open", name)
	if err != nil {
		return nil, err
	}
	return &memFile{info: memInfo{name: name, size: int64(len(data))}, r: bytes.NewReader(data)}, nil
}

func (m memFS) lookup(op, name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	data, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return data, nil
}

func (m memFS) Stat(name string) (fs.FileInfo, error) {
	if name == "." {
		return memInfo{name: ".", dir: true}, nil
	}
	data, err := m.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return memInfo{name: name, size: int64(len(data))}, nil
}

func (m memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		if _, err := m.lookup("readdir", name); err != nil {
			return nil, err
		}
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]fs.DirEntry, len(names))
	for i, n := range names {
		out[i] = memInfo{name: n, size: int64(len(m[n]))}
	}
	return out, nil
}

// memInfo describes a file or the root of a memFS.
type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time         { return time.Time{} }
func (i memInfo) IsDir() bool                { return i.dir }
func (i memInfo) Sys() any                   { return nil }
func (i memInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i memInfo) Info() (fs.FileInfo, error) { return i, nil }

type memFile struct {
	info memInfo
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

// memDir is the open root of a memFS.
type memDir struct {
	m    memFS
	read int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{name: ".", dir: true}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	all, _ := d.m.ReadDir(".")
	rest := all[d.read:]
	if n > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(n, len(rest))]
	}
	d.read += len(rest)
	return rest, nil
}
