package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/shellcmd"
)

// subprocessScript uses subprocess the ways published scripts do: the
// interpreter itself, shell=True pipelines, the shell's commands by name,
// pipes both ways, 2>&1, files, os.popen and os.system, a missing
// program.
const subprocessScript = `import os, subprocess, sys
from subprocess import PIPE, STDOUT
print("start", flush=True)
r = subprocess.run([sys.executable, "-c", "import sys; print('hi'); sys.stderr.write('e\\n'); sys.exit(3)"], capture_output=True, text=True)
print(repr((r.returncode, r.stdout, r.stderr)))
print(subprocess.check_output(["python3", "-c", "import sys; print(sys.stdin.read().upper())"], input=b"abc"))
print(subprocess.run("printf 'b\\na\\n' | sort | head -1", shell=True, capture_output=True, text=True).stdout, end="")
print(subprocess.run(["grep", "-c", "x", "data.txt"], capture_output=True).stdout)
print(subprocess.run(["sh", "-c", "echo out; echo err >&2; echo out2"], stdout=PIPE, stderr=STDOUT, text=True).stdout, end="")
print(subprocess.run(["cat", "f.txt"], cwd="sub", stdout=PIPE).stdout)
p = subprocess.Popen(["wc", "-l"], stdin=PIPE, stdout=PIPE)
print(p.communicate(b"a\nb\n"), p.returncode)
for line in subprocess.Popen(["seq", "3"], stdout=PIPE, text=True).stdout:
    print("line", line.strip())
print(subprocess.run(["sh", "-c", "echo $FOO"], env={"FOO": "bar"}, capture_output=True).stdout)
with open("written.txt", "w") as f:
    subprocess.run(["echo", "to a file"], stdout=f)
print(open("written.txt").read(), end="")
try:
    subprocess.check_call(["false"])
except subprocess.CalledProcessError as e:
    print("failed", e.returncode)
try:
    subprocess.run(["no-such-program-anywhere", "x"])
except FileNotFoundError as e:
    print("missing", e.filename, e)
print(subprocess.getstatusoutput("echo status; exit 2"))
print(os.popen("echo popen").read(), end="")
print(os.system("exit 3") >> 8)
with subprocess.Popen(["tr", "a-z", "A-Z"], stdin=PIPE, stdout=PIPE, text=True) as p:
    p.stdin.write("piped in\n")
    p.stdin.close()
    print(p.stdout.read(), end="")
import shutil
print(shutil.which("sh") is not None, shutil.which("grep") is not None, shutil.which("no-such-program-anywhere"))
print("end")
subprocess.run(["echo", "inherited"])
`

// TestPythonSubprocess runs subprocessScript natively (Debian's
// python3.11 with the host's programs) and sandboxed, where every program
// is another run in the sandbox: the output is the same.
func TestPythonSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: every program is another sandboxed run, compared with native python3 (2 s); the full suite runs it")
	}
	interpreters(t, interp.Shell)
	r, ws, nativeOut := sandboxedAndNative(t, interp.Python, "scripts/x.py", subprocessScript)
	assert.Equal(t, nativeOut, r.stdout)
	assert.Contains(t, r.stdout, "start\ninherited\n", "a program's inherited output goes ahead of what Python still buffers, as natively")
	assert.Contains(t, r.stderr, "no-such-program-anywhere: no such program in the sandbox")
	got, err := os.ReadFile(filepath.Join(ws, "written.txt"))
	require.NoError(t, err)
	assert.Equal(t, "to a file\n", string(got))
}

// sandboxedAndNative runs src as the script file of a skill (granted the
// workspace) and natively (Debian's python3.11 or node, with the host's
// programs), each over a fresh workspace of the same files, with
// block-buffered output both ways; it returns the sandboxed run, its
// workspace and the native stdout.
func sandboxedAndNative(t *testing.T, lang, file, src string) (sourceRun, string, string) {
	t.Helper()
	native := nativeBinaries[lang]
	if _, err := os.Stat(native); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("%s is required (REQUIRE_TOOLCHAINS=1): %v", native, err)
		}
		t.Skipf("no %s: %v", native, err)
	}
	newWorkspace := func() string {
		ws := t.TempDir()
		for name, body := range map[string]string{"data.txt": "x\ny\nxx\n", "sub/f.txt": "in sub\n"} {
			p := filepath.Join(ws, filepath.FromSlash(name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		}
		return ws
	}
	script := filepath.Join(t.TempDir(), filepath.Base(file))
	require.NoError(t, os.WriteFile(script, []byte(src), 0o644))
	cmd := exec.Command(native, script)
	cmd.Dir = newWorkspace()
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	var nativeOut, nativeErr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &nativeOut, &nativeErr
	require.NoError(t, cmd.Run(), nativeErr.String())

	ws := newWorkspace()
	s := sourceSkill(t, `read = ["workspace"]`+"\n"+`write = ["workspace"]`, file, map[string]string{file: src})
	r := runSource(t, s, "main", lang, &ScriptRun{Services: host.Services{Workspace: ws}})
	require.NoError(t, r.err, r.stderr)
	require.Equal(t, uint32(0), r.res.ExitCode, r.stderr)
	return r, ws, nativeOut.String()
}

// TestPythonSubprocessAttacks: a script that starts itself stops at the
// nesting limit; requests made by hand to the host function are checked
// like any guest's.
func TestPythonSubprocessAttacks(t *testing.T) {
	interpreters(t, interp.Shell)
	t.Run("starts itself", func(t *testing.T) {
		src := "import subprocess, sys\nr = subprocess.run([sys.executable, __file__])\nprint('level exit', r.returncode)\nsys.exit(r.returncode + 1)\n"
		s := sourceSkill(t, "", "scripts/x.py", map[string]string{"scripts/x.py": src})
		r := runSource(t, s, "main", interp.Python, nil)
		require.NoError(t, r.err, r.stderr)
		assert.Contains(t, r.stderr, "nest at most 4 deep")
		assert.Equal(t, 4, strings.Count(r.stdout, "level exit"), r.stdout)
		assert.NotEqual(t, uint32(0), r.res.ExitCode)
	})
	t.Run("raw requests", func(t *testing.T) {
		src := `import _skillrun, json
for req in (b"not json", b"{}", b'{"args": []}', b'{"args": ["python3"], "stdin_file": "/workspace/../etc/passwd"}',
            b'{"args": ["python3"], "stdin_file": "/skill/SKILL.md"}', b'{"args": ["/usr/bin/ssh", "host"]}', b'{"args": ["scripts/missing.sh"]}'):
    env = json.loads(_skillrun.exec(req))
    print(env["ok"], env.get("error", {}).get("code"))
try:
    _skillrun.exec(12)
except TypeError as e:
    print("TypeError")
`
		s := sourceSkill(t, "", "scripts/x.py", map[string]string{"scripts/x.py": src})
		r := runSource(t, s, "main", interp.Python, nil)
		require.NoError(t, r.err, r.stderr)
		require.Equal(t, uint32(0), r.res.ExitCode, r.stderr)
		assert.Equal(t, "False invalid\nFalse invalid\nFalse invalid\nFalse invalid\nFalse invalid\nFalse not_found\nTrue None\nTypeError\n", r.stdout)
	})
}

// TestExecProgram: how exec starts each kind of program name.
func TestExecProgram(t *testing.T) {
	for _, c := range []struct {
		args     []string
		lang     string
		progArgs []string
	}{
		{[]string{"python3", "x.py", "a"}, interp.Python, []string{"/w/x.py", "a"}},
		{[]string{"/usr/local/bin/python3.11", "-c", "print(1)"}, interp.Python, []string{"-c", "print(1)"}},
		{[]string{"node", "x.js"}, interp.JS, []string{"/w/x.js"}},
		{[]string{"node", "-e", "console.log(1)", "a"}, interp.JS, []string{"-e", "console.log(1)", "a"}},
		{[]string{"bash", "-c", "echo hi"}, interp.Shell, []string{"-c", "echo hi"}},
		{[]string{"/bin/sh", "s.sh"}, interp.Shell, []string{"s.sh"}},
		{[]string{"grep", "-c", "x"}, interp.Shell, []string{"-c", shellCommandScript, "grep", "-c", "x"}},
		{[]string{"/usr/bin/jq", "."}, interp.Shell, []string{"-c", shellCommandScript, "jq", "."}},
		{[]string{"./run.sh", "a"}, interp.Shell, []string{"-c", shellCommandScript, "./run.sh", "a"}},
		{[]string{"scripts/run"}, interp.Shell, []string{"-c", shellCommandScript, "scripts/run"}},
		{[]string{"./grep"}, interp.Shell, []string{"-c", shellCommandScript, "./grep"}},
	} {
		lang, args, err := execProgram("/w", c.args)
		require.NoError(t, err, c.args)
		assert.Equal(t, c.lang, lang, c.args)
		assert.Equal(t, c.progArgs, args, c.args)
	}
	for _, bad := range [][]string{{"git", "status"}, {"/usr/bin/git"}, {"soffice"}, {"/bin/ssh"}} {
		_, _, err := execProgram("/w", bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "no such program in the sandbox")
	}
}

// childProcessScript uses node's synchronous child_process calls the ways
// published scripts do. (Outputs are strings in the sandbox, Buffers in
// node: the script prints them through toString.)
const childProcessScript = `const cp = require('child_process');
console.log("start");
console.log(JSON.stringify(cp.execSync("printf 'b\\na\\n' | sort").toString()));
console.log(cp.execFileSync("python3", ["-c", "import sys; print(sys.stdin.read().upper())"], {input: "abc"}).toString().trim());
const r = cp.spawnSync("sh", ["-c", "echo out; echo err >&2; exit 4"]);
console.log(r.status, JSON.stringify(r.stdout.toString()), JSON.stringify(r.stderr.toString()));
const m = cp.spawnSync("no-such-program-anywhere", ["x"]);
console.log(m.status, m.error.code, m.error.message);
try { cp.execSync("exit 3", {stdio: "pipe"}); } catch (e) { console.log("failed", e.status); }
try { cp.execFileSync("no-such-program-anywhere"); } catch (e) { console.log("missing", e.code, e.syscall, e.path); }
console.log(cp.execFileSync("node", ["-e", "console.log(process.argv.length, 20 + 1)", "a"]).toString().trim());
console.log(cp.execFileSync("node", ["-p", "6 * 7"]).toString().trim());
console.log(cp.execSync("grep -c x data.txt").toString().trim());
console.log(cp.execSync("cat f.txt", {cwd: "sub", encoding: "utf8"}).trim());
console.log(cp.execFileSync("sh", ["-c", "echo $FOO"], {env: {FOO: "bar"}}).toString().trim());
cp.execSync("echo inherited", {stdio: "inherit"});
console.log("end");
`

// TestNodeChildProcess runs childProcessScript under node and sandboxed:
// the output is the same.
func TestNodeChildProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: every program is another sandboxed run, compared with native node (2 s); the full suite runs it")
	}
	interpreters(t, interp.Shell)
	interpreters(t, interp.JS)
	r, _, nativeOut := sandboxedAndNative(t, interp.JS, "scripts/x.js", childProcessScript)
	assert.Equal(t, nativeOut, r.stdout)
	assert.Contains(t, r.stderr, "no-such-program-anywhere: no such program in the sandbox")
}

// TestExecLanguagesAreInterpreters: the interpreters exec starts are the
// ones internal/shellcmd names (which Python's subprocess and
// shutil.which know).
func TestExecLanguagesAreInterpreters(t *testing.T) {
	for name := range execLanguages {
		assert.True(t, shellcmd.IsInterpreter(name), name)
	}
	for _, name := range shellcmd.Programs() {
		if shellcmd.IsInterpreter(name) {
			assert.Contains(t, execLanguages, name)
		}
	}
}
