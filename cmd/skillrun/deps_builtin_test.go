package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/internal/testkit"
)

// builtin returns the entry of interp.PythonPackages named name.
func builtin(t *testing.T, name string) interp.Package {
	t.Helper()
	for _, p := range interp.PythonPackages {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("%s is not in interp.PythonPackages", name)
	return interp.Package{}
}

// depsOf runs `skillrun deps` with args.
func depsOf(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(append([]string{"deps"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestDepsBuiltinOnly: a skill whose script imports only the standard
// library and packages built into skillrun's Python (PIL, lxml) needs
// nothing fetched: deps exits 0 without a package source (--index-url
// none) and without asking an index it is given, names the built-in
// packages with their versions, --json lists them under "provided", and
// nothing is pinned.
func TestDepsBuiltinOnly(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	pil, lxml := builtin(t, "Pillow"), builtin(t, "lxml")
	skill := filepath.Join(t.TempDir(), "img")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":       "---\nname: img\ndescription: Thumbnails images and reads XML.\n---\nx\n",
		skill + "/scripts/img.py": "import json, sys\nfrom PIL import Image\nimport lxml.etree as ET\n",
	})

	code, out, errOut := depsOf(skill, "--index-url", "none")
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, out, "img needs no packages beyond the standard library and the built-in ones")
	assert.Contains(t, out, "uses "+lxml.Name+" "+lxml.Version+", "+pil.Name+" "+pil.Version+" (built into skillrun's Python)")
	assert.Empty(t, errOut)
	_, err := pydeps.LoadPin("", skill)
	assert.ErrorIs(t, err, fs.ErrNotExist, "a pin was saved")

	index, hits := wheelIndex(t, t.TempDir())
	code, out, errOut = depsOf(skill, "--index-url", index, "--json", "--refresh")
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Zero(t, hits.Load(), "the index was asked")
	var got struct {
		Skill    string            `json:"skill"`
		Wheels   []any             `json:"wheels"`
		Provided []pydeps.Provided `json:"provided"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "img", got.Skill)
	assert.NotNil(t, got.Wheels)
	assert.Empty(t, got.Wheels)
	assert.Equal(t, []pydeps.Provided{
		{Name: lxml.Name, Version: lxml.Version, Import: lxml.Import},
		{Name: pil.Name, Version: pil.Version, Import: pil.Import},
	}, got.Provided)
	assert.Contains(t, out, `"name": "Pillow"`)
}

// TestDepsBuiltinPinnedVersion: a requirements.txt pinning a Pillow the
// interpreter does not have still succeeds, and stderr warns naming the
// requirement, the file and line, and the built-in version.
func TestDepsBuiltinPinnedVersion(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	pil := builtin(t, "Pillow")
	skill := filepath.Join(t.TempDir(), "img")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":         "---\nname: img\ndescription: Thumbnails images.\n---\nx\n",
		skill + "/requirements.txt": "Pillow==10.0.0\n",
		skill + "/scripts/img.py":   "from PIL import Image\n",
	})
	code, out, errOut := depsOf(skill, "--index-url", "none")
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, errOut, "skillrun: requirements.txt:1 asks for Pillow==10.0.0; the sandbox's Python provides Pillow "+pil.Version+" (built in), which is used")
	assert.Contains(t, out, "uses Pillow "+pil.Version)
}

// TestDepsCompiledNotBuiltin: a script importing numpy, which the index
// has only as compiled wheels, fails with exit 1 naming numpy, the
// compiled packages that are built in, and the native tier.
func TestDepsCompiledNotBuiltin(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	wheels := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(wheels, "numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"), []byte("PK"), 0o644))
	index, _ := wheelIndex(t, wheels)
	skill := filepath.Join(t.TempDir(), "stats")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":         "---\nname: stats\ndescription: Computes statistics.\n---\nx\n",
		skill + "/scripts/stats.py": "import numpy as np\nfrom PIL import Image\n",
	})
	code, out, errOut := depsOf(skill, "--index-url", index)
	assert.Equal(t, 1, code, "stdout %s\nstderr %s", out, errOut)
	for _, p := range interp.PythonPackages {
		assert.Contains(t, errOut, p.Name+" "+p.Version)
	}
	for _, want := range []string{"stats needs", "numpy (scripts/stats.py:1 imports numpy)", "numpy: no pure-Python wheel", "numpy is not one of them", "--native", "native = true"} {
		assert.Contains(t, errOut, want)
	}
	_, err := pydeps.LoadPin("", skill)
	assert.ErrorIs(t, err, fs.ErrNotExist, "a pin was saved")
}

// TestDepsBuiltinWithWheels: a script importing yaml and PIL pins PyYAML
// (a real wheel from Debian's python3-yaml) and says Pillow is built in.
func TestDepsBuiltinWithWheels(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	index, _ := wheelIndex(t, debianWheels(t))
	pil := builtin(t, "Pillow")
	skill := filepath.Join(t.TempDir(), "img")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":       "---\nname: img\ndescription: Thumbnails images as a spec says.\n---\nx\n",
		skill + "/scripts/img.py": "import yaml\nfrom PIL import Image\n",
	})
	code, out, errOut := depsOf(skill, "--index-url", index)
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, out, "PyYAML 6.")
	assert.Contains(t, out, "uses Pillow "+pil.Version+" (built into skillrun's Python)\npinned 1 packages for img")
	pin, err := pydeps.LoadPin("", skill)
	require.NoError(t, err)
	require.Len(t, pin.Wheels, 1)
	assert.Equal(t, "PyYAML", pin.Wheels[0].Name)
	assert.NoDirExists(t, filepath.Join(pin.SiteDir, "PIL"))

	code, out, errOut = depsOf(skill, "--index-url", index, "--json")
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, []any{map[string]any{"name": "Pillow", "version": pil.Version, "import": "PIL"}}, got["provided"])
	assert.Len(t, got["wheels"], 1)
	assert.Equal(t, pin.SiteDir, got["site"])
}
