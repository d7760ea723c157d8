package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// newerPythonSkill is a skill whose script's PEP 723 block asks for
// Python 3.12 and runs fine on 3.11.
func newerPythonSkill(t *testing.T) string {
	t.Helper()
	skill := filepath.Join(t.TempDir(), "newer")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md": "---\nname: newer\ndescription: Asks for a newer Python than it needs.\n---\nRun `python scripts/a.py`.\n",
		skill + "/scripts/a.py": "# /// script\n# requires-python = \">=3.12\"\n# dependencies = []\n# ///\n" +
			"import sys\nprint('ran on', '.'.join(map(str, sys.version_info[:2])))\n",
	})
	return skill
}

// TestRequiresPythonWarns: a script that asks for a newer Python than the
// sandbox's runs, with a warning that names where it asks, both versions
// and the flag; --strict-python refuses it (exit 2) without running it.
// deps warns the same way and fails (exit 1) with the flag.
func TestRequiresPythonWarns(t *testing.T) {
	needPython(t)
	skill := newerPythonSkill(t)
	cli := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := cli("run", skill+":scripts/a.py", "--workspace", t.TempDir(), "-A")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "ran on 3.11\n", out)
	assert.Contains(t, errOut, "warning: newer: scripts/a.py:1: the script requires Python >=3.12; skillrun's sandbox runs Python 3.11.2; running it anyway (--strict-python refuses)")

	code, out, errOut = cli("run", skill+":scripts/a.py", "--workspace", t.TempDir(), "-A", "--strict-python")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out, "not run")
	assert.Contains(t, errOut, "scripts/a.py:1: the script requires Python >=3.12; skillrun's sandbox runs Python 3.11.2 (--strict-python)")

	code, out, errOut = depsOf(skill, "--index-url", "none")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "newer needs no packages")
	assert.Contains(t, errOut, "warning: newer: scripts/a.py:1: the script requires Python >=3.12")
	code, _, errOut = depsOf(skill, "--index-url", "none", "--strict-python")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "requires Python >=3.12; skillrun's sandbox runs Python 3.11.2 (--strict-python)")
}

// TestRequiresPythonMet: a script whose requires-python the sandbox meets
// runs without a word, strict or not.
func TestRequiresPythonMet(t *testing.T) {
	needPython(t)
	skill := filepath.Join(t.TempDir(), "met")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":     "---\nname: met\ndescription: Asks for a Python it gets.\n---\nx\n",
		skill + "/scripts/a.py": "# /// script\n# requires-python = \">=3.9\"\n# ///\nprint('ok')\n",
	})
	var out, errOut bytes.Buffer
	code := run([]string{"run", skill + ":scripts/a.py", "--workspace", t.TempDir(), "-A", "--strict-python"}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	assert.Equal(t, "ok\n", out.String())
	assert.NotContains(t, errOut.String(), "warning")
}
