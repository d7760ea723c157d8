package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/testkit"
)

// TestReleaseWithoutToolchains follows the README's install steps on a
// machine with nothing of ours: a release engine (built as tools/dist.sh
// builds it: -trimpath, the bundle's digest linked in) beside the
// interpreter bundle, run with an empty PATH (no go, clang, git or
// python3) and a fresh HOME. It installs the interpreters from the
// bundle beside it, adds a skill from a folder, runs its Python, shell
// and JavaScript scripts in the sandbox, and `install --frozen` catches
// a file changed after.
func TestReleaseWithoutToolchains(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	skipUnderRace(t)
	built, err := interp.DefaultDir()
	require.NoError(t, err)
	if _, err := interp.Find(built, interp.Python); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("CPython for WASI is required (REQUIRE_TOOLCHAINS=1): %v; run `make python`", err)
		}
		t.Skipf("no CPython for WASI to bundle: %v", err)
	}
	for _, lang := range []string{interp.JS, interp.JSTS, interp.Shell} {
		_, err := interp.Ensure(context.Background(), built, lang, nil)
		require.NoError(t, err)
	}

	// The release folder: the bundle and the engine built with its digest.
	rel := t.TempDir()
	const bundleName = "skillrun-interpreters-vtest.tar.gz"
	var stdout, stderr bytes.Buffer
	code := run([]string{"interpreters", "bundle", "-o", filepath.Join(rel, bundleName), "--dir", built}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	digest := strings.TrimSpace(stdout.String())
	exe := filepath.Join(rel, "skillrun")
	pkg := "github.com/skillrun/skillrun/internal/interp"
	build := exec.Command("go", "build", "-trimpath", "-o", exe,
		"-ldflags", "-s -w -X "+pkg+".bundleDigest="+digest+" -X "+pkg+".bundleURL=https://releases.invalid/vtest/"+bundleName, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	// A user with nothing on PATH and a home of their own.
	home, project, emptyPath := t.TempDir(), t.TempDir(), t.TempDir()
	skillrun := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(exe, args...)
		cmd.Dir = project
		cmd.Env = []string{"PATH=" + emptyPath, "HOME=" + home, "SKILLRUN_RESIDENT=0"}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, stdout.String(), stderr.String()
	}

	// The compile cache is keyed by the modules' bytes: sharing this
	// machine's spares compiling them again, as a second run would.
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".cache", "skillrun"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(built), "wazero"), filepath.Join(home, ".cache", "skillrun", "wazero")))

	code, outS, errS := skillrun("interpreters", "install")
	require.Equal(t, 0, code, errS)
	for _, lang := range []string{"python", "js", "js-ts", "sh"} {
		assert.Contains(t, outS, "installed "+lang+" (")
	}
	assert.Contains(t, errS, "every file verified")
	code, _, errS = skillrun("interpreters", "compile")
	require.Equal(t, 0, code, errS)

	src := testkit.WriteTree(t, t.TempDir(), map[string]string{
		"greet/SKILL.md": "---\nname: greet\ndescription: Greets in three languages.\n---\n\n" +
			"Run `python scripts/hello.py`, `bash scripts/hello.sh` or `node scripts/hello.js`.\n",
		"greet/scripts/hello.py": "import json, sys\nprint(json.dumps({'py': list(sys.version_info[:2])}))\n",
		"greet/scripts/hello.sh": "#!/bin/bash\nprintf 'b\\na\\n' | sort | tr a-z A-Z | paste -sd,\n",
		// The compiled packages travel in the bundle with CPython.
		"greet/scripts/pkgs.py": "import PIL, lxml.etree\nprint(PIL.__name__, lxml.etree.__name__)\n",
		"greet/scripts/hello.js": "const { createHash } = require('node:crypto');\n" +
			"console.log('js', createHash('sha256').update('x').digest('hex').slice(0, 8));\n",
	})
	code, outS, errS = skillrun("add", filepath.Join(src, "greet"))
	require.Equal(t, 0, code, errS)
	assert.Contains(t, outS, "greet")
	_, err = os.Stat(filepath.Join(project, "skillrun-lock.json"))
	require.NoError(t, err)

	ws := t.TempDir()
	for script, want := range map[string]string{
		"hello.py": `{"py": [3, 11]}` + "\n",
		"hello.sh": "A,B\n",
		"hello.js": "js 2d711642\n",
		"pkgs.py":  "PIL lxml.etree\n",
	} {
		code, outS, errS := skillrun("run", ".agents/skills/greet:scripts/"+script, "--workspace", ws, "-A")
		if assert.Equal(t, 0, code, "%s: %s", script, errS) {
			assert.Equal(t, want, outS, script)
		}
	}

	code, _, errS = skillrun("install", "--frozen")
	require.Equal(t, 0, code, errS)
	require.NoError(t, os.WriteFile(filepath.Join(project, ".agents", "skills", "greet", "scripts", "hello.sh"), []byte("#!/bin/bash\ncurl evil.example\n"), 0o644))
	code, outS, errS = skillrun("install", "--frozen")
	assert.Equal(t, 1, code, "install --frozen catches the changed file: %s%s", outS, errS)
	assert.Contains(t, outS+errS, "greet")
}
