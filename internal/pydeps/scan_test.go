package pydeps

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// writeTree writes files (slash paths) under a new temp folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestScan(t *testing.T) {
	skill := writeTree(t, map[string]string{
		"SKILL.md": "---\nname: x\n---\n",
		"scripts/fill.py": `#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = [
#   "openpyxl>=3.0",
#   "pypdf",
# ]
# ///
import yaml  # declared above? no: this file declares, so imports are not read
`,
		"scripts/convert.py": `"""Usage:

    from notinstalled import thing   # in a docstring: not an import
"""
from __future__ import annotations
import os, sys, json as j
import yaml
import defusedxml.ElementTree as ET
from dotenv import load_dotenv
from . import sibling
from .rel import x
import helper
from lib2 import util
try:
    import mysterymod
except ImportError:
    mysterymod = None
if True: import PIL.Image
from google import protobuf
s = "import fake"
def f():
    from bs4 import (
        BeautifulSoup,
    )
`,
		"scripts/helper.py":        "X = 1\n",
		"scripts/lib2/util.py":     "Y = 2\n",
		"requirements.txt":         "# deps\n\nPyYAML>=6.0 ; python_version >= \"3.8\"\n--index-url https://example.invalid/simple\n-r more/extra.txt\nrequests==2.32.3 --hash=sha256:abc\n",
		"more/extra.txt":           "python_dotenv==1.0.0\n",
		"node_modules/x/a.py":      "import leftpad\n",
		".git/hooks/h.py":          "import gitstuff\n",
		"scripts/__pycache__/c.py": "import cached\n",
	})
	need, err := Scan(skill)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Requirement{}
	var order []string
	for _, r := range need.Requirements {
		got[Normalize(r.Name)] = r
		order = append(order, Normalize(r.Name))
	}
	want := map[string]string{ // name -> source prefix
		"openpyxl":       "scripts/fill.py:2 (PEP 723)",
		"pypdf":          "scripts/fill.py:2 (PEP 723)",
		"pyyaml":         "requirements.txt:3",
		"requests":       "requirements.txt:6",
		"python-dotenv":  "more/extra.txt:1",
		"defusedxml":     "scripts/convert.py:8 imports defusedxml",
		"pillow":         "scripts/convert.py:18 imports PIL",
		"beautifulsoup4": "scripts/convert.py:22 imports bs4",
	}
	for name, src := range want {
		r, ok := got[name]
		if !ok {
			t.Errorf("missing %s in %v", name, order)
			continue
		}
		if r.Source != src {
			t.Errorf("%s: source %q, want %q", name, r.Source, src)
		}
	}
	if len(got) != len(want) {
		t.Errorf("requirements %v, want the %d of %v", order, len(want), want)
	}
	if r := got["pyyaml"]; r.Specifier != ">=6.0" || r.Marker != `python_version >= "3.8"` {
		t.Errorf("PyYAML: %+v", r)
	}
	if r := got["openpyxl"]; r.Specifier != ">=3.0" {
		t.Errorf("openpyxl: %+v", r)
	}
	// The import of yaml merged into the declared PyYAML, whose source
	// stays the first.
	// Modules the table does not know are not guessed into packages
	// (anyone may publish one named like an import): they are reported.
	assert.Equal(t, []Import{
		{Module: "mysterymod", Where: "scripts/convert.py:15"},
		{Module: "google", Where: "scripts/convert.py:19"},
	}, need.Unknown)
	un := fmt.Sprint(need.Unknown)
	for _, bad := range []string{"notinstalled", "fake", "helper", "util", "lib2", "sibling", "leftpad", "gitstuff", "cached", "os", "__future__"} {
		if _, ok := got[bad]; ok || strings.Contains(un, bad+" ") {
			t.Errorf("%s should not be required (requirements %v, unresolved %q)", bad, order, un)
		}
	}
}

func TestScanInvalidPEP723(t *testing.T) {
	skill := writeTree(t, map[string]string{
		"scripts/bad.py": "import os\n\n# /// script\n# dependencies = [\n#   \"pyyaml\",\n#   oops\n# ]\n# ///\n",
	})
	_, err := Scan(skill)
	if err == nil || !strings.Contains(err.Error(), "scripts/bad.py:6: invalid PEP 723 block") {
		t.Fatalf("err = %v, want it to name scripts/bad.py:6", err)
	}
	skill = writeTree(t, map[string]string{
		"a.py": "# /// script\n# dependencies = [\"pyyaml\"]\nprint(1)\n",
	})
	if _, err := Scan(skill); err == nil || !strings.Contains(err.Error(), "a.py:1: # /// script block is not closed") {
		t.Fatalf("unclosed: err = %v", err)
	}
	skill = writeTree(t, map[string]string{
		"a.py": "# /// script\n# dependencies = [\"py yaml\"]\n# ///\n",
	})
	if _, err := Scan(skill); err == nil || !strings.Contains(err.Error(), "a.py:1: invalid PEP 723 block") {
		t.Fatalf("bad requirement: err = %v", err)
	}
	skill = writeTree(t, map[string]string{
		"a.py": "# /// script\n# requires-python = \">=3.12\"\n# ///\n",
	})
	if _, err := Scan(skill); err == nil || !strings.Contains(err.Error(), "requires Python >=3.12; skillrun runs 3.11.2") {
		t.Fatalf("requires-python: err = %v", err)
	}
}

func TestScanIncludeOutside(t *testing.T) {
	outside := writeTree(t, map[string]string{"evil.txt": "evilpkg\n"})
	skill := writeTree(t, map[string]string{
		"requirements.txt": "-r ../evil.txt\n",
	})
	if _, err := Scan(skill); err == nil || !strings.Contains(err.Error(), "requirements.txt:1: -r ../evil.txt leads outside the skill") {
		t.Fatalf("err = %v", err)
	}
	skill = writeTree(t, map[string]string{"requirements.txt": "-r " + filepath.Join(outside, "evil.txt") + "\n"})
	if _, err := Scan(skill); err == nil || !strings.Contains(err.Error(), "leads outside the skill") {
		t.Fatalf("absolute: err = %v", err)
	}
	// A symlink inside the skill that points out is refused by os.Root.
	skill = writeTree(t, map[string]string{"requirements.txt": "-r link.txt\n"})
	if err := os.Symlink(filepath.Join(outside, "evil.txt"), filepath.Join(skill, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(skill); err == nil || !strings.Contains(err.Error(), "requirements.txt:1: -r link.txt") {
		t.Fatalf("symlink: err = %v", err)
	}
	// Cycles end.
	skill = writeTree(t, map[string]string{"requirements.txt": "-r b.txt\n", "b.txt": "-r requirements.txt\n"})
	if _, err := Scan(skill); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle: err = %v", err)
	}
}

func TestScanLargeFileSkipped(t *testing.T) {
	skill := writeTree(t, map[string]string{
		"big.py":   "import yaml\n" + strings.Repeat("#\n", maxSourceBytes),
		"small.py": "import defusedxml\n",
	})
	need, err := Scan(skill)
	if err != nil {
		t.Fatal(err)
	}
	if len(need.Requirements) != 1 || need.Requirements[0].Name != "defusedxml" || len(need.Skipped) != 1 {
		t.Fatalf("need = %+v", need)
	}
}

func TestFindImports(t *testing.T) {
	src := "import a.b as c, d\nfrom e.f import (g,\n h)\nx = 1; import i\nimport \\\n  j\n'''\nimport k\n'''\n# import l\nfrom .m import n\nr = f\"import o\"\n"
	var got []string
	for _, im := range findImports([]byte(src)) {
		got = append(got, im.module)
	}
	if strings.Join(got, " ") != "a d e i j" {
		t.Fatalf("imports = %v", got)
	}
}
