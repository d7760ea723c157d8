package pydeps

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
)

// Bounds on one wheel: the largest pure-Python wheels (botocore, plotly)
// unpack to a few hundred MiB at most; a zip bomb would be far beyond.
const (
	maxWheelBytes    = 256 << 20 // compressed download
	maxUnpackedBytes = 256 << 20 // uncompressed total
	maxMembers       = 50000
)

// A Wheel is one resolved distribution.
type Wheel struct {
	Name, Version string // from the wheel's METADATA
	File          string // the wheel's file name
	SHA256        string // hex of the wheel file
	// Requires are its Requires-Dist lines that apply on skillrun's
	// interpreter (see [EvalMarker]): those without a marker, those whose
	// marker holds for CPython 3.11 on WASI, and those of the extras that
	// were asked for.
	Requires []string
}

// wheelName is a parsed wheel file name (PEP 427):
// {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl.
type wheelName struct {
	name, version          string
	python, abi, platforms []string
}

func parseWheelName(file string) (wheelName, bool) {
	base, ok := strings.CutSuffix(file, ".whl")
	if !ok {
		return wheelName{}, false
	}
	parts := strings.Split(base, "-")
	if len(parts) != 5 && len(parts) != 6 {
		return wheelName{}, false
	}
	n := len(parts)
	return wheelName{
		name:      parts[0],
		version:   parts[1],
		python:    strings.Split(parts[n-3], "."),
		abi:       strings.Split(parts[n-2], "."),
		platforms: strings.Split(parts[n-1], "."),
	}, true
}

// pure reports whether the wheel can load on CPython 3.11 for WASI: no
// ABI, any platform, and a Python tag that 3.11 accepts (py3, or py3N
// with N <= 11). A cp311-none-any wheel is refused too: a "cp" tag
// claims CPython-specific code, which in practice means a build step.
func (w wheelName) pure() bool {
	if !contains(w.abi, "none") || !contains(w.platforms, "any") {
		return false
	}
	for _, t := range w.python {
		if t == "py3" {
			return true
		}
		if minor, ok := strings.CutPrefix(t, "py3"); ok {
			if n, err := strconv.Atoi(minor); err == nil && n <= 11 {
				return true
			}
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isSdist reports whether a file is a source distribution, which
// skillrun cannot build.
func isSdist(file string) bool {
	for _, ext := range []string{".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar.xz"} {
		if strings.HasSuffix(file, ext) {
			return true
		}
	}
	return false
}

// compiledExt reports whether a member is native code, which no WASI
// interpreter can load whatever the wheel's tags claim.
func compiledExt(name string) bool {
	base := path.Base(name)
	for _, ext := range []string{".so", ".pyd", ".dylib", ".dll"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return strings.Contains(base, ".so.") // libfoo.so.1
}

// checkArchive refuses a wheel that could write outside the site or
// exhaust the disk, or that holds native code: every member path is
// relative and stays inside, none is a symlink, there are at most
// maxMembers and they declare at most maxUnpackedBytes (unpacking
// enforces the actual sizes too).
func checkArchive(file string, zr *zip.Reader) error {
	if len(zr.File) > maxMembers {
		return fmt.Errorf("%s: %d members (more than %d)", file, len(zr.File), maxMembers)
	}
	var total uint64
	for _, f := range zr.File {
		if err := checkMember(f.Name); err != nil {
			return fmt.Errorf("%s: member %s %w", file, f.Name, err)
		}
		if f.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: member %s is a symlink", file, f.Name)
		}
		if compiledExt(f.Name) {
			return &compiledError{fmt.Errorf("%s: member %s is a compiled extension (skillrun runs Python in WebAssembly, where compiled extensions cannot load)", file, f.Name)}
		}
		total += f.UncompressedSize64
		if total > maxUnpackedBytes {
			return fmt.Errorf("%s: unpacks to more than %d MiB", file, maxUnpackedBytes>>20)
		}
	}
	return nil
}

// checkMember refuses names that would land outside the unpack folder.
func checkMember(name string) error {
	switch {
	case name == "":
		return errors.New("has an empty name")
	case strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || (len(name) > 1 && name[1] == ':'):
		return errors.New("is an absolute path")
	case strings.ContainsRune(name, 0):
		return errors.New("has a NUL in its name")
	}
	for el := range strings.SplitSeq(strings.TrimSuffix(name, "/"), "/") {
		if el == ".." {
			return errors.New("escapes the archive")
		}
	}
	return nil
}

// wheelMeta is what resolution needs from a wheel's METADATA.
type wheelMeta struct {
	name, version string
	requiresDist  []string
}

// readMetadata reads {name}-{version}.dist-info/METADATA: the headers up
// to the first blank line (RFC 822 style, with continuation lines).
func readMetadata(file string, zr *zip.Reader) (wheelMeta, error) {
	wn, _ := parseWheelName(file)
	var mf *zip.File
	for _, f := range zr.File {
		dir, base, ok := strings.Cut(f.Name, "/")
		if !ok || base != "METADATA" || !strings.HasSuffix(dir, ".dist-info") {
			continue
		}
		// Prefer the dist-info named after the file; take any otherwise.
		if mf == nil || Normalize(strings.TrimSuffix(dir, ".dist-info")) == Normalize(wn.name+"-"+wn.version) {
			mf = f
		}
	}
	if mf == nil {
		return wheelMeta{}, fmt.Errorf("%s: no .dist-info/METADATA", file)
	}
	rc, err := mf.Open()
	if err != nil {
		return wheelMeta{}, fmt.Errorf("%s: %w", file, err)
	}
	defer rc.Close()
	var m wheelMeta
	sc := bufio.NewScanner(io.LimitReader(rc, 16<<20))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var key, val string
	emit := func() {
		switch strings.ToLower(key) {
		case "name":
			m.name = val
		case "version":
			m.version = val
		case "requires-dist":
			m.requiresDist = append(m.requiresDist, val)
		}
	}
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			break // the body (long description) follows
		}
		if line[0] == ' ' || line[0] == '\t' {
			val += " " + strings.TrimSpace(line)
			continue
		}
		emit()
		k, v, _ := strings.Cut(line, ":")
		key, val = k, strings.TrimSpace(v)
	}
	emit()
	if err := sc.Err(); err != nil {
		return wheelMeta{}, fmt.Errorf("%s: METADATA: %w", file, err)
	}
	if m.name == "" || m.version == "" {
		return wheelMeta{}, fmt.Errorf("%s: METADATA has no Name or Version", file)
	}
	if Normalize(m.name) != Normalize(wn.name) {
		return wheelMeta{}, fmt.Errorf("%s: METADATA names %s, not the file's project", file, m.name)
	}
	return m, nil
}

// unpackWheel writes the wheel's members into the site under root.
// Members of {name}.data/purelib and platlib go to the top, as installers
// do; the other .data folders (scripts, headers, data) hold nothing an
// import can reach and are left out. written maps each path written so
// far to the wheel that wrote it: two wheels may not write one file.
func unpackWheel(file string, zr *zip.Reader, root *os.Root, written map[string]string) error {
	var total int64
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		name := f.Name
		if top, rest, ok := strings.Cut(name, "/"); ok && strings.HasSuffix(top, ".data") {
			kind, sub, ok := strings.Cut(rest, "/")
			if !ok || (kind != "purelib" && kind != "platlib") {
				continue
			}
			name = sub
		}
		if prev, ok := written[name]; ok {
			return fmt.Errorf("%s and %s both install %s", prev, file, name)
		}
		written[name] = file
		if dir := path.Dir(name); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		}
		n, err := unpackMember(f, root, name, maxUnpackedBytes-total)
		total += n
		if err != nil {
			return fmt.Errorf("%s: member %s: %w", file, f.Name, err)
		}
	}
	return nil
}

func unpackMember(f *zip.File, root *os.Root, name string, budget int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	perm := os.FileMode(0o644)
	if f.Mode()&0o111 != 0 {
		perm = 0o755
	}
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > budget {
		err = fmt.Errorf("unpacks to more than %d MiB", maxUnpackedBytes>>20)
	}
	return n, err
}
