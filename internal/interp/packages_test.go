package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadPackages: the PACKAGES file build-pypackages.sh writes becomes
// Interpreter.Packages; a malformed line is an error naming the file and
// line; no file is no packages.
func TestReadPackages(t *testing.T) {
	dir := t.TempDir()
	d := fakePython(t, filepath.Join(dir, "python-3.11"))
	in, err := Find(dir, Python)
	require.NoError(t, err)
	assert.Empty(t, in.Packages, "an interpreter built before the packages has none")

	testkit.WriteFile(t, d, "PACKAGES", "libjpeg-turbo\t2.1.5\tlibjpeg-turbo=1:2.1.5-2\t-\nPillow\t9.4.0\tpillow=9.4.0-1.1+deb12u1\tPIL\n")
	in, err = Find(dir, Python)
	require.NoError(t, err)
	assert.Equal(t, []Package{
		{Name: "libjpeg-turbo", Version: "2.1.5", Source: "libjpeg-turbo=1:2.1.5-2"},
		{Name: "Pillow", Import: "PIL", Version: "9.4.0", Source: "pillow=9.4.0-1.1+deb12u1"},
	}, in.Packages)

	testkit.WriteFile(t, d, "PACKAGES", "Pillow 9.4.0\n")
	_, err = Find(dir, Python)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(d, "PACKAGES")+":1: want name, version, source and import separated by tabs")
}

// TestPackagesMatchBuild: PythonPackages (what `skillrun deps` counts as
// provided) is what the build pins, and what the installed interpreter,
// if built by this tree's script, says it has.
func TestPackagesMatchBuild(t *testing.T) {
	script, err := os.ReadFile("build-pypackages.sh")
	require.NoError(t, err)
	for _, p := range PythonPackages {
		assert.Contains(t, string(script), "=("+map[string]string{"Pillow": "pillow", "lxml": "lxml"}[p.Name]+" "+p.Version,
			"build-pypackages.sh pins %s %s", p.Name, p.Version)
	}
	dir, err := DefaultDir()
	require.NoError(t, err)
	in, err := Find(dir, Python)
	if err != nil || in.Version != pythonBuildVersion(t) {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("CPython for WASI of this tree's build is required (REQUIRE_TOOLCHAINS=1): %v (installed %v); run `make python`", err, in)
		}
		t.Skip("the installed Python is not this tree's build; run `make python`")
	}
	var got []Package
	for _, p := range in.Packages {
		if p.Import != "" {
			got = append(got, Package{Name: p.Name, Import: p.Import, Version: p.Version})
		}
	}
	assert.Equal(t, PythonPackages, got)
}

// pythonBuildVersion is the VERSION this tree's build-python.sh writes:
// its DEB_VERSION and BUILD, as the Makefile reads them.
func pythonBuildVersion(t *testing.T) string {
	t.Helper()
	var deb, build string
	for _, line := range strings.Split(string(buildPythonScript), "\n") {
		if v, ok := strings.CutPrefix(line, "DEB_VERSION=${DEB_VERSION:-"); ok {
			deb = strings.TrimSuffix(v, "}")
		}
		if v, ok := strings.CutPrefix(line, "BUILD="); ok {
			build = v
		}
	}
	require.NotEmpty(t, deb)
	require.NotEmpty(t, build)
	return deb + "+skillrun" + build
}

// TestInstallPythonFromWithPackages: a prebuilt with compiled packages
// brings its PACKAGES list and test suites; a malformed list is refused
// at install, leaving nothing behind.
func TestInstallPythonFromWithPackages(t *testing.T) {
	from := fakePython(t, t.TempDir())
	testkit.WriteFile(t, from, "PACKAGES", "lxml\t4.9.2\tlxml=4.9.2-1+deb12u1\tlxml\n")
	testkit.WriteFile(t, from, "tests/lxml/src/suite/lxmltests/__init__.py", "")
	dir := filepath.Join(t.TempDir(), "interpreters")
	in, err := InstallPythonFrom(dir, from)
	require.NoError(t, err)
	assert.Equal(t, []Package{{Name: "lxml", Import: "lxml", Version: "4.9.2", Source: "lxml=4.9.2-1+deb12u1"}}, in.Packages)
	_, err = os.Stat(filepath.Join(in.Dir, "tests/lxml/src/suite/lxmltests/__init__.py"))
	require.NoError(t, err)

	bad := fakePython(t, t.TempDir())
	testkit.WriteFile(t, bad, "PACKAGES", "lxml 4.9.2\n")
	dir2 := filepath.Join(t.TempDir(), "interpreters")
	_, err = InstallPythonFrom(dir2, bad)
	require.ErrorContains(t, err, "PACKAGES:1")
	_, err = os.Stat(filepath.Join(dir2, "python-3.11"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assertNoLeftovers(t, dir2)
}
