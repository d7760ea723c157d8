package pydeps

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// DebianDistPackages is where Debian installs its python3-* packages.
const DebianDistPackages = "/usr/lib/python3/dist-packages"

// debianDroppedRequires restores install requirements that Debian's
// packaging removed from an egg-info's requires.txt (Debian expresses
// them as package dependencies instead), as upstream's metadata declares
// them, so that the wheels resolve like the ones on PyPI.
var debianDroppedRequires = map[string][]string{
	"openpyxl":    {"et_xmlfile"},  // openpyxl 3.0.9 setup.py: install_requires
	"python-docx": {"lxml>=2.3.2"}, // python-docx 0.8.11 setup.py: install_requires
}

// DebianWheels builds wheels from Debian's dist-packages for tests and
// offline use: for each distribution (e.g. "openpyxl", "et-xmlfile",
// "PyYAML", "pypdf", "defusedxml", installed by the python3-* packages)
// it writes {name}-{version}-py3-none-any.whl into dir and returns the
// paths. Tests of this package and of others serve them from a loopback
// index; offline users can point --find-links at dir.
//
// A wheel holds the distribution's top-level modules (top_level.txt, or
// RECORD) without bytecode and without compiled extensions (PyYAML's
// optional _yaml accelerator), and a .dist-info made from the installed
// one: METADATA as it is, or, for an .egg-info, from PKG-INFO plus
// Requires-Dist lines from requires.txt; WHEEL with Tag: py3-none-any;
// and RECORD. The archives are deterministic (fixed times, sorted
// members), so the same packages give the same hashes.
func DebianWheels(dir string, dists ...string) ([]string, error) {
	entries, err := os.ReadDir(DebianDistPackages)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dists {
		info := ""
		for _, e := range entries {
			n := e.Name()
			if !strings.HasSuffix(n, ".dist-info") && !strings.HasSuffix(n, ".egg-info") {
				continue
			}
			if name, _, _ := strings.Cut(n, "-"); Normalize(name) == Normalize(d) {
				info = n
				break
			}
		}
		if info == "" {
			return nil, fmt.Errorf("%s: not installed in %s (install Debian's python3-%s)", d, DebianDistPackages, Normalize(d))
		}
		p, err := debianWheel(dir, info)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// wheelEscapeRE finds what a wheel file name spells as "_" (PEP 427).
var wheelEscapeRE = regexp.MustCompile(`[^A-Za-z0-9.]+`)

// wheelFileTime is the fixed member time of built wheels (zip's epoch).
var wheelFileTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

func debianWheel(dir, info string) (string, error) {
	fsys := os.DirFS(DebianDistPackages)
	egg := strings.HasSuffix(info, ".egg-info")
	var meta []byte
	var err error
	if egg {
		meta, err = eggMetadata(fsys, info)
	} else {
		meta, err = fs.ReadFile(fsys, path.Join(info, "METADATA"))
	}
	if err != nil {
		return "", err
	}
	name, version := header(meta, "Name"), header(meta, "Version")
	if name == "" || version == "" {
		return "", fmt.Errorf("%s: metadata without Name or Version", info)
	}
	tops, err := topLevelModules(fsys, info)
	if err != nil {
		return "", err
	}
	escaped := wheelEscapeRE.ReplaceAllString(name, "_")
	distInfo := escaped + "-" + version + ".dist-info"
	files := map[string][]byte{}
	for _, top := range tops {
		err := fs.WalkDir(fsys, top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "__pycache__" {
					return fs.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".pyc") || compiledExt(p) || !d.Type().IsRegular() {
				return nil
			}
			b, err := fs.ReadFile(fsys, p)
			files[p] = b
			return err
		})
		if err != nil {
			return "", err
		}
	}
	files[distInfo+"/METADATA"] = meta
	files[distInfo+"/WHEEL"] = []byte("Wheel-Version: 1.0\nGenerator: skillrun pydeps.DebianWheels\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
	files[distInfo+"/top_level.txt"] = []byte(strings.Join(tops, "\n") + "\n")
	names := slices.Sorted(maps.Keys(files))
	var record bytes.Buffer
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", n, base64.RawURLEncoding.EncodeToString(sum[:]), len(files[n]))
	}
	fmt.Fprintf(&record, "%s/RECORD,,\n", distInfo)
	files[distInfo+"/RECORD"] = record.Bytes()
	names = append(names, distInfo+"/RECORD")

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: wheelFileTime})
		if err != nil {
			return "", err
		}
		if _, err := w.Write(files[n]); err != nil {
			return "", err
		}
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	out := filepath.Join(dir, escaped+"-"+version+"-py3-none-any.whl")
	return out, os.WriteFile(out, buf.Bytes(), 0o644)
}

// header returns the first value of a metadata header.
func header(meta []byte, key string) string {
	for line := range strings.SplitSeq(string(meta), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, key) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// topLevelModules lists a distribution's top-level modules and packages, as
// paths under dist-packages: top_level.txt names them; a dist-info
// without it has them in RECORD.
func topLevelModules(fsys fs.FS, info string) ([]string, error) {
	var names []string
	if b, err := fs.ReadFile(fsys, path.Join(info, "top_level.txt")); err == nil {
		names = strings.Fields(string(b))
	} else if b, err := fs.ReadFile(fsys, path.Join(info, "RECORD")); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			p, _, _ := strings.Cut(line, ",")
			top, _, _ := strings.Cut(p, "/")
			if top != "" && top != ".." && !strings.HasSuffix(top, ".dist-info") && !slices.Contains(names, top) {
				names = append(names, strings.TrimSuffix(top, ".py"))
			}
		}
	}
	var tops []string
	for _, n := range names {
		switch {
		case isDir(fsys, n):
			tops = append(tops, n)
		case isFile(fsys, n+".py"):
			tops = append(tops, n+".py")
		}
	}
	if len(tops) == 0 {
		return nil, fmt.Errorf("%s: no top-level modules found", info)
	}
	slices.Sort(tops)
	return slices.Compact(tops), nil
}

func isDir(fsys fs.FS, p string) bool {
	fi, err := fs.Stat(fsys, p)
	return err == nil && fi.IsDir()
}

func isFile(fsys fs.FS, p string) bool {
	fi, err := fs.Stat(fsys, p)
	return err == nil && fi.Mode().IsRegular()
}

// eggMetadata makes a METADATA from an egg-info: its PKG-INFO headers,
// Requires-Dist lines from requires.txt ("[extra]" and "[:marker]"
// sections become markers), and the PKG-INFO body.
func eggMetadata(fsys fs.FS, info string) ([]byte, error) {
	pkgInfo, err := fs.ReadFile(fsys, path.Join(info, "PKG-INFO"))
	if err != nil {
		return nil, err
	}
	name := header(pkgInfo, "Name")
	var requires []string
	if b, err := fs.ReadFile(fsys, path.Join(info, "requires.txt")); err == nil {
		requires = parseRequiresTxt(string(b))
	}
	if len(requires) == 0 {
		requires = debianDroppedRequires[Normalize(name)]
	}
	text := strings.ReplaceAll(string(pkgInfo), "\r\n", "\n")
	head, body, _ := strings.Cut(text, "\n\n")
	var out strings.Builder
	for line := range strings.SplitSeq(head, "\n") {
		if k, _, _ := strings.Cut(line, ":"); strings.EqualFold(k, "Metadata-Version") {
			line = "Metadata-Version: 2.1" // Requires-Dist needs 1.2 or later
		}
		out.WriteString(line + "\n")
	}
	for _, r := range requires {
		out.WriteString("Requires-Dist: " + r + "\n")
	}
	out.WriteString("\n" + body)
	return []byte(out.String()), nil
}

// parseRequiresTxt reads setuptools' requires.txt: requirements, then
// sections "[extra]", "[:marker]" or "[extra:marker]".
func parseRequiresTxt(s string) []string {
	var out []string
	marker := ""
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			extra, m, _ := strings.Cut(line[1:len(line)-1], ":")
			var parts []string
			if extra != "" {
				parts = append(parts, fmt.Sprintf("extra == %q", extra))
			}
			if m != "" {
				parts = append(parts, "("+m+")")
			}
			marker = strings.Join(parts, " and ")
		case marker != "":
			out = append(out, line+"; "+marker)
		default:
			out = append(out, line)
		}
	}
	return out
}
