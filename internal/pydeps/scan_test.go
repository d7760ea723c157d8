package pydeps

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScan(t *testing.T) {
	skill := testkit.WriteTree(t, t.TempDir(), map[string]string{
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
	require.NoError(t, err)
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
		if !assert.True(t, ok, "missing %s in %v", name, order) {
			continue
		}
		assert.Equal(t, src, r.Source, "%s: source", name)
	}
	assert.Len(t, got, len(want), "requirements %v, want those of %v", order, want)
	assert.Equal(t, ">=6.0", got["pyyaml"].Specifier, "PyYAML: %+v", got["pyyaml"])
	assert.Equal(t, `python_version >= "3.8"`, got["pyyaml"].Marker, "PyYAML: %+v", got["pyyaml"])
	assert.Equal(t, ">=3.0", got["openpyxl"].Specifier, "openpyxl: %+v", got["openpyxl"])
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
		assert.NotContains(t, got, bad, "%s should not be required (requirements %v)", bad, order)
		assert.NotContains(t, un, bad+" ", "%s should not be required (unresolved %q)", bad, un)
	}
}

func TestScanInvalidPEP723(t *testing.T) {
	skill := testkit.WriteTree(t, t.TempDir(), map[string]string{
		"scripts/bad.py": "import os\n\n# /// script\n# dependencies = [\n#   \"pyyaml\",\n#   oops\n# ]\n# ///\n",
	})
	_, err := Scan(skill)
	require.ErrorContains(t, err, "scripts/bad.py:6: invalid PEP 723 block", "want it to name scripts/bad.py:6")
	skill = testkit.WriteTree(t, t.TempDir(), map[string]string{
		"a.py": "# /// script\n# dependencies = [\"pyyaml\"]\nprint(1)\n",
	})
	_, err = Scan(skill)
	require.ErrorContains(t, err, "a.py:1: # /// script block is not closed", "unclosed")
	skill = testkit.WriteTree(t, t.TempDir(), map[string]string{
		"a.py": "# /// script\n# dependencies = [\"py yaml\"]\n# ///\n",
	})
	_, err = Scan(skill)
	require.ErrorContains(t, err, "a.py:1: invalid PEP 723 block", "bad requirement")
	skill = testkit.WriteTree(t, t.TempDir(), map[string]string{
		"a.py": "# /// script\n# requires-python = \">=3.12\"\n# ///\n",
	})
	_, err = Scan(skill)
	require.NoError(t, err, "a requires-python the sandbox does not meet is a warning, not an error")
	skill = testkit.WriteTree(t, t.TempDir(), map[string]string{
		"a.py": "# /// script\n# requires-python = \">=3.12 junk\"\n# ///\n",
	})
	_, err = Scan(skill)
	require.ErrorContains(t, err, "a.py:1: invalid PEP 723 block: requires-python", "a malformed specifier")
}

// TestScanRequiresPython: a script whose requires-python excludes the
// sandbox's Python is reported with where it says so and both versions;
// one it meets is not. ScriptPython says the same of one file.
func TestScanRequiresPython(t *testing.T) {
	skill := testkit.WriteTree(t, t.TempDir(), map[string]string{
		"scripts/new.py":           "import json\n\n# /// script\n# requires-python = \">=3.12\"\n# dependencies = []\n# ///\nprint(1)\n",
		"scripts/ok.py":            "# /// script\n# requires-python = \">=3.8\"\n# ///\n",
		"references/examples/x.py": "# /// script\n# requires-python = \"<3\"\n# ///\n",
	})
	need, err := Scan(skill)
	require.NoError(t, err)
	assert.Equal(t, []PythonMismatch{
		{Where: "references/examples/x.py:1", Requires: "<3", Have: "3.11.2"},
		{Where: "scripts/new.py:3", Requires: ">=3.12", Have: "3.11.2"},
	}, need.Python)
	assert.Equal(t, "scripts/new.py:3: the script requires Python >=3.12; skillrun's sandbox runs Python 3.11.2", need.Python[1].String())

	m, err := ScriptPython("scripts/new.py", []byte("# /// script\n# requires-python = \">=3.12\"\n# ///\n"))
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Equal(t, "scripts/new.py:1", m.Where)
	m, err = ScriptPython("ok.py", []byte("# /// script\n# requires-python = \">=3.10\"\n# ///\nprint(1)\n"))
	require.NoError(t, err)
	assert.Nil(t, m)
	m, err = ScriptPython("plain.py", []byte("print(1)\n"))
	require.NoError(t, err)
	assert.Nil(t, m)
	_, err = ScriptPython("bad.py", []byte("# /// script\n# requires-python = 3\n# ///\n"))
	assert.ErrorContains(t, err, "bad.py:")
}

func TestScanIncludeOutside(t *testing.T) {
	outside := testkit.WriteTree(t, t.TempDir(), map[string]string{"evil.txt": "evilpkg\n"})
	skill := testkit.WriteTree(t, t.TempDir(), map[string]string{
		"requirements.txt": "-r ../evil.txt\n",
	})
	_, err := Scan(skill)
	require.ErrorContains(t, err, "requirements.txt:1: -r ../evil.txt leads outside the skill")
	skill = testkit.WriteTree(t, t.TempDir(), map[string]string{"requirements.txt": "-r " + filepath.Join(outside, "evil.txt") + "\n"})
	_, err = Scan(skill)
	require.ErrorContains(t, err, "leads outside the skill", "absolute")
	// A symlink inside the skill that points out is refused by os.Root.
	skill = testkit.WriteTree(t, t.TempDir(), map[string]string{"requirements.txt": "-r link.txt\n"})
	require.NoError(t, os.Symlink(filepath.Join(outside, "evil.txt"), filepath.Join(skill, "link.txt")))
	_, err = Scan(skill)
	require.ErrorContains(t, err, "requirements.txt:1: -r link.txt", "symlink")
	// Cycles end.
	skill = testkit.WriteTree(t, t.TempDir(), map[string]string{"requirements.txt": "-r b.txt\n", "b.txt": "-r requirements.txt\n"})
	_, err = Scan(skill)
	require.ErrorContains(t, err, "cycle", "cycle")
}

func TestScanLargeFileSkipped(t *testing.T) {
	skill := testkit.WriteTree(t, t.TempDir(), map[string]string{
		"big.py":   "import yaml\n" + strings.Repeat("#\n", maxSourceBytes),
		"small.py": "import defusedxml\n",
	})
	need, err := Scan(skill)
	require.NoError(t, err)
	require.Len(t, need.Requirements, 1, "need = %+v", need)
	require.Equal(t, "defusedxml", need.Requirements[0].Name, "need = %+v", need)
	require.Len(t, need.Skipped, 1, "need = %+v", need)
}

func TestFindImports(t *testing.T) {
	src := "import a.b as c, d\nfrom e.f import (g,\n h)\nx = 1; import i\nimport \\\n  j\n'''\nimport k\n'''\n# import l\nfrom .m import n\nr = f\"import o\"\n"
	var got []string
	for _, im := range findImports([]byte(src)) {
		got = append(got, im.module)
	}
	require.Equal(t, []string{"a", "d", "e", "i", "j"}, got, "imports")
}
