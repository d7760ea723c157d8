package interp

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Package is a compiled Python package, or a C library one needs,
// built into skillrun's WASI CPython (build-pypackages.sh): its extension
// modules are built-ins of python.wasm and its Python files are in the
// read-only standard-library mount, under dist-packages.
type Package struct {
	Name    string `json:"name"`             // the distribution, as a requirement names it: "Pillow"
	Import  string `json:"import,omitempty"` // the top-level import ("PIL"); "" for a C library
	Version string `json:"version"`          // the upstream version built, Debian bookworm's
	Source  string `json:"source,omitempty"` // the Debian source package and version it was built from
}

// PythonPackages lists the compiled packages python.wasm provides, the
// versions build-pypackages.sh pins (Debian bookworm's source packages,
// so the same versions as Debian's python3-pil and python3-lxml).
// `skillrun deps` counts them as provided and never fetches them;
// TestPackagesMatchBuild checks this list against the PACKAGES file the
// build writes.
var PythonPackages = []Package{
	{Name: "Pillow", Import: "PIL", Version: "9.4.0"},
	{Name: "lxml", Import: "lxml", Version: "4.9.2"},
}

// packagesFile names the list build-pypackages.sh writes beside
// python.wasm: a line per package or C library, tab-separated: name,
// version, Debian source (name=version), import ("-" for a library).
const packagesFile = "PACKAGES"

// readPackages reads the PACKAGES file of the Python interpreter in dir.
// An interpreter built before the packages has none: no packages.
func readPackages(dir string) ([]Package, error) {
	data, err := os.ReadFile(filepath.Join(dir, packagesFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Package
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" || f[1] == "" {
			return nil, fmt.Errorf("%s:%d: want name, version, source and import separated by tabs, have %q", filepath.Join(dir, packagesFile), n, line)
		}
		p := Package{Name: f[0], Version: f[1], Source: f[2], Import: f[3]}
		if p.Import == "-" {
			p.Import = ""
		}
		out = append(out, p)
	}
	return out, sc.Err()
}
