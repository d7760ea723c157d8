package scripts

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Source scripts run under real interpreters from the user cache dir:
// the JavaScript one is built from this tree on first use (the go command
// is all it needs); CPython for WASI is built by `make python`, which CI
// runs. Without it these tests skip, unless REQUIRE_TOOLCHAINS=1 (CI),
// which makes that a failure. The Runner uses the default disk
// compilation cache, so the interpreters (tens of MB) compile once per
// machine, not once per test run.

var (
	sourceOnce sync.Once
	sourceRT   *Runner
	sourceErr  error
)

func sourceRunner(t testing.TB) *Runner {
	t.Helper()
	sourceOnce.Do(func() { sourceRT, sourceErr = New(context.Background(), nil) })
	require.NoError(t, sourceErr)
	return sourceRT
}

// interpreters returns the interpreter lookup for tests, after making
// sure the language's interpreter is there.
func interpreters(t testing.TB, language string) InterpreterFunc {
	t.Helper()
	dir, err := interp.DefaultDir()
	require.NoError(t, err)
	switch language {
	case interp.JS:
		jsOnce.Do(func() {
			if _, jsErr = interp.Ensure(context.Background(), dir, interp.JS, nil); jsErr == nil {
				_, jsErr = interp.Ensure(context.Background(), dir, interp.JSTS, nil)
			}
		})
		require.NoError(t, jsErr)
	case interp.Shell:
		shOnce.Do(func() { _, shErr = interp.Ensure(context.Background(), dir, interp.Shell, nil) })
		require.NoError(t, shErr)
	case interp.Python:
		if _, err := interp.Find(dir, interp.Python); err != nil {
			if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
				t.Fatalf("CPython for WASI is required (REQUIRE_TOOLCHAINS=1): %v; run `make python`", err)
			}
			t.Skipf("%v; run `make python`", err)
		}
	}
	return InstalledInterpreters(dir)
}

var (
	jsOnce, shOnce sync.Once
	jsErr, shErr   error
)

// sourceSkill writes a skill with one source script (name "main") and
// the given files, and loads it.
func sourceSkill(t *testing.T, caps, script string, files map[string]string) *skills.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src-skill")
	files["SKILL.md"] = "---\nname: src-skill\ndescription: d\n---\n"
	files["skill.toml"] = "version = 1\n[capabilities]\n" + caps + "\n[scripts.main]\nsource = \"" + script + "\"\n"
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	s, err := skills.LoadDir(dir, &skills.LoadOptions{Strict: true})
	require.NoError(t, err)
	return s
}

func loadExample(t *testing.T, name string) *skills.Skill {
	t.Helper()
	s, err := skills.LoadDir(filepath.Join("..", "examples", name), &skills.LoadOptions{Strict: true})
	require.NoError(t, err)
	return s
}

// workspaceCopy copies examples/workspace to a temporary folder.
func workspaceCopy(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	require.NoError(t, os.CopyFS(ws, os.DirFS(filepath.Join("..", "examples", "workspace"))))
	return ws
}

// noGrant grants nothing the test skills declare (but is not the zero
// Set, which runSource takes as "grant what is declared").
var noGrant = capabilities.Set{Env: []string{"NOT_DECLARED_BY_ANY_TEST"}}

type sourceRun struct {
	res            *sandbox.Result
	stdout, stderr string
	err            error
}

func runSource(t *testing.T, s *skills.Skill, script, lang string, sr *ScriptRun) sourceRun {
	t.Helper()
	if sr == nil {
		sr = &ScriptRun{}
	}
	if sr.Granted.IsZero() {
		_, declared, err := declaredOf(s, script)
		require.NoError(t, err)
		sr.Granted = grant(t, declared)
	}
	var stdout, stderr bytes.Buffer
	sr.Stdout, sr.Stderr = &stdout, &stderr
	sr.Interpreters = interpreters(t, lang)
	res, err := sourceRunner(t).RunScript(context.Background(), s, script, sr)
	return sourceRun{res, stdout.String(), stderr.String(), err}
}

const wantReport = `| region | revenue | share |
| ------ | ------: | ----: |
| west   |  232.30 | 31.1% |
| north  |  195.50 | 26.2% |
| east   |  181.50 | 24.3% |
| south  |  137.00 | 18.4% |
`

// TestSourceCSVReport runs the example skills, a real-world-shaped Python
// script (stdlib csv/json/argparse plus a vendored package under lib/)
// and the same work in JavaScript, on the example workspace: the report
// lands in workspace/out and nothing else changes.
func TestSourceCSVReport(t *testing.T) {
	for _, c := range []struct{ skill, lang string }{{"py-csv-report", interp.Python}, {"js-csv-report", interp.JS}} {
		t.Run(c.lang, func(t *testing.T) {
			s := loadExample(t, c.skill)
			ws := workspaceCopy(t)
			r := runSource(t, s, "report", c.lang, &ScriptRun{Services: host.Services{Workspace: ws}, Args: []string{"sales.csv"}})
			require.NoError(t, r.err, "stderr: %s", r.stderr)
			require.Equal(t, uint32(0), r.res.ExitCode, "stderr: %s", r.stderr)
			assert.Equal(t, "10 rows, 4 groups, total revenue 746.30; top region: west (31.1%); wrote out/report.md\n", r.stdout)
			assert.Empty(t, r.stderr)
			report, err := os.ReadFile(filepath.Join(ws, "out", "report.md"))
			require.NoError(t, err)
			assert.Contains(t, string(report), wantReport)
			assert.Contains(t, string(report), "Total: 746.30")

			// Only out/ is writable: the CSV's folder is not.
			r = runSource(t, s, "report", c.lang, &ScriptRun{Services: host.Services{Workspace: ws}, Args: []string{"nope.csv"}})
			require.NoError(t, r.err)
			assert.NotEqual(t, uint32(0), r.res.ExitCode)
			assert.Contains(t, r.stderr, "nope.csv")
		})
	}
}

// TestSourcePythonConfigJSON: the Python report reads a JSON config from
// the workspace.
func TestSourcePythonConfigJSON(t *testing.T) {
	s := loadExample(t, "py-csv-report")
	ws := workspaceCopy(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "report.json"), []byte(`{"group": "region", "sum": "units"}`), 0o644))
	r := runSource(t, s, "report", interp.Python, &ScriptRun{Services: host.Services{Workspace: ws}, Args: []string{"sales.csv"}})
	require.NoError(t, r.err)
	require.Equal(t, uint32(0), r.res.ExitCode, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "total units")
}

// TestSourceSandboxRefusals: what the sandbox cannot give fails loudly,
// naming the import or call, never silently.
func TestSourceSandboxRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: one Python and JS run per refusal (1.7 s); the full suite runs it")
	}
	cases := []struct {
		name, lang, file, src string
		want                  []string
	}{
		{"numpy", interp.Python, "scripts/x.py", "import numpy as np\nprint(np.zeros(3))\n",
			[]string{"No module named 'numpy'", "compiled extension module", "WebAssembly Python does not have",
				"the compiled packages built into it are lxml, Pillow (import PIL)", "the native tier (--native"}},
		{"unknown package", interp.Python, "scripts/x.py", "import requests\n",
			[]string{"No module named 'requests'", "run `skillrun deps` on the skill to fetch 'requests'"}},
		{"host program", interp.Python, "scripts/x.py", "import subprocess\nsubprocess.run(['git', 'status'])\n",
			[]string{"git: no such program in the sandbox", "never a host program", "FileNotFoundError: [Errno 2] No such file or directory: 'git'"}},
		{"os.fork", interp.Python, "scripts/x.py", "import os\nos.fork()\n",
			[]string{"module 'os' has no attribute 'fork'", "no subprocesses"}},
		{"socket", interp.Python, "scripts/x.py", "import urllib.request\nurllib.request.urlopen('http://example.com/')\n",
			[]string{"socket.", "is not available", "no sockets"}},
		{"cluster", interp.JS, "scripts/x.js", "require('cluster').fork()\n",
			[]string{`require("cluster") is not available`, "no subprocesses"}},
		{"child_process.spawn", interp.JS, "scripts/x.js", "require('child_process').spawn('ls')\n",
			[]string{"child_process.spawn is not available", "no event loop; use spawnSync"}},
		{"https", interp.JS, "scripts/x.js", "require('https').get('https://example.com')\n",
			[]string{`require("https") is not available`, "fetch()"}},
		{"errno numbers as Linux's", interp.Python, "scripts/x.py", "open('missing.txt')\n",
			[]string{"FileNotFoundError: [Errno 2] No such file or directory: 'missing.txt'"}},
		{"typescript syntax error", interp.JS, "scripts/x.ts", "const x: = 1\n",
			[]string{"SyntaxError", "/skill/scripts/x.ts:1:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := sourceSkill(t, "", c.file, map[string]string{c.file: c.src})
			r := runSource(t, s, "main", c.lang, nil)
			require.NoError(t, r.err)
			assert.NotEqual(t, uint32(0), r.res.ExitCode, "stdout: %s", r.stdout)
			for _, w := range c.want {
				assert.Contains(t, r.stderr, w)
			}
		})
	}
}

// TestSourcePythonAsyncio: asyncio.run works in the sandbox (the event
// loop's self-pipe, a socketpair, is left out: WASI has no sockets and
// no threads to wake it), timers and queues included.
func TestSourcePythonAsyncio(t *testing.T) {
	src := `import asyncio, time
async def work(i):
    await asyncio.sleep(0.02 * i)
    return i * 2
async def main():
    start = time.monotonic()
    got = await asyncio.gather(*(work(i) for i in range(4)))
    q = asyncio.Queue()
    await q.put("queued")
    print(got, await q.get(), time.monotonic() - start >= 0.06)
    try:
        await asyncio.wait_for(asyncio.sleep(10), 0.01)
    except asyncio.TimeoutError:
        print("timed out")
asyncio.run(main())
`
	s := sourceSkill(t, "", "scripts/x.py", map[string]string{"scripts/x.py": src})
	r := runSource(t, s, "main", interp.Python, nil)
	require.NoError(t, r.err)
	require.Equal(t, uint32(0), r.res.ExitCode, r.stderr)
	assert.Equal(t, "[0, 2, 4, 6] queued True\ntimed out\n", r.stdout)
}

// TestSourcePythonSleep: time.sleep waits as natively (CPython's
// absolute-clock sleep is refused by the runtime; sitecustomize sleeps
// with select instead), and checks its argument as natively.
func TestSourcePythonSleep(t *testing.T) {
	src := `import time
from time import sleep
start = time.monotonic()
time.sleep(0.05)
sleep(0)
print(time.monotonic() - start >= 0.05)
for bad in (-1, "1"):
    try:
        time.sleep(bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
`
	s := sourceSkill(t, "", "scripts/x.py", map[string]string{"scripts/x.py": src})
	r := runSource(t, s, "main", interp.Python, nil)
	require.NoError(t, r.err)
	require.Equal(t, uint32(0), r.res.ExitCode, r.stderr)
	assert.Equal(t, "True\nValueError sleep length must be non-negative\nTypeError 'str' object cannot be interpreted as an integer\n", r.stdout)
}

// TestSourceHostFilesDenied: /etc/passwd (and anything else of the host)
// does not exist for the script; the workspace is there only as granted.
func TestSourceHostFilesDenied(t *testing.T) {
	for _, c := range []struct{ lang, file, src, want string }{
		{interp.Python, "scripts/x.py", "print(open('/etc/passwd').read())\n", "No such file or directory: '/etc/passwd'"},
		{interp.JS, "scripts/x.js", "console.log(require('fs').readFileSync('/etc/passwd', 'utf8'))\n", "ENOENT"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			s := sourceSkill(t, `read = ["workspace"]`, c.file, map[string]string{c.file: c.src})
			r := runSource(t, s, "main", c.lang, &ScriptRun{Services: host.Services{Workspace: workspaceCopy(t)}})
			require.NoError(t, r.err)
			assert.NotEqual(t, uint32(0), r.res.ExitCode)
			assert.Contains(t, r.stderr, c.want)
			assert.NotContains(t, r.stdout, "root:")

			// Not granted, the workspace is not mounted at all.
			ws := workspaceCopy(t)
			read := strings.Replace(c.src, "/etc/passwd", "/workspace/sales.csv", 1)
			s = sourceSkill(t, `read = ["workspace"]`, c.file, map[string]string{c.file: read})
			r = runSource(t, s, "main", c.lang, &ScriptRun{Services: host.Services{Workspace: ws}, Granted: noGrant})
			require.NoError(t, r.err)
			assert.NotEqual(t, uint32(0), r.res.ExitCode)
			assert.NotContains(t, r.stdout, "region")
			r = runSource(t, s, "main", c.lang, &ScriptRun{Services: host.Services{Workspace: ws}})
			require.NoError(t, r.err)
			assert.Equal(t, uint32(0), r.res.ExitCode, "stderr: %s", r.stderr)
			assert.Contains(t, r.stdout, "region,units")
		})
	}
}

// TestSourcePassThrough: args, stdin, the exit code and a granted
// environment variable reach the script; the skill folder is read-only
// and the standard library cannot be changed.
func TestSourcePassThrough(t *testing.T) {
	for _, c := range []struct{ lang, file, src string }{
		{interp.Python, "scripts/x.py", `import os, sys
print("args", sys.argv[1:])
print("stdin", sys.stdin.read().strip())
print("env", os.environ.get("SKILLRUN_T"), os.environ.get("HOME"))
for p in ("/skill/new.txt", "/usr/local/lib/python3.11/os.py"):
    try:
        open(p, "a").write("x")
        print("wrote", p)
    except OSError as e:
        print("refused", p, e.strerror)
sys.exit(3)
`},
		{interp.JS, "scripts/x.js", `const fs = require('fs');
console.log("args", JSON.stringify(process.argv.slice(2)));
console.log("stdin", fs.readFileSync('/dev/stdin', 'utf8').trim());
console.log("env", process.env.SKILLRUN_T, process.env.HOME);
try { fs.writeFileSync('/skill/new.txt', 'x'); console.log('wrote') } catch (e) { console.log('refused /skill/new.txt', e.code) }
process.exit(3);
`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Setenv("SKILLRUN_T", "granted-value")
			s := sourceSkill(t, `env = ["SKILLRUN_T"]`, c.file, map[string]string{c.file: c.src})
			r := runSource(t, s, "main", c.lang, &ScriptRun{Args: []string{"a b", "--flag"}, Stdin: strings.NewReader("from stdin\n")})
			require.NoError(t, r.err, r.stderr)
			assert.Equal(t, uint32(3), r.res.ExitCode, "stderr: %s", r.stderr)
			assert.Regexp(t, `args \[?'?"?a b'?"?, ?'?"?--flag`, r.stdout)
			assert.Contains(t, r.stdout, "stdin from stdin")
			assert.Contains(t, r.stdout, "env granted-value")
			assert.NotContains(t, r.stdout, "wrote")
			assert.Contains(t, r.stdout, "refused /skill/new.txt")
			_, err := os.Stat(filepath.Join(filepath.Dir(s.Location), "new.txt"))
			assert.True(t, errors.Is(err, os.ErrNotExist))
		})
	}
}

// TestSourceVendoredPackage: a pure-Python package under the skill's lib/
// is importable, as is a module beside the script.
func TestSourceVendoredPackage(t *testing.T) {
	s := sourceSkill(t, "", "scripts/x.py", map[string]string{
		"lib/slugify_lite/__init__.py": "import re\ndef slugify(s):\n    return re.sub(r'[^a-z0-9]+', '-', s.lower()).strip('-')\n",
		"scripts/helper.py":            "GREETING = 'hello'\n",
		"scripts/x.py":                 "from slugify_lite import slugify\nfrom helper import GREETING\nprint(slugify(GREETING + ' Wasm World!'))\n",
	})
	r := runSource(t, s, "main", interp.Python, nil)
	require.NoError(t, r.err)
	require.Equal(t, uint32(0), r.res.ExitCode, "stderr: %s", r.stderr)
	assert.Equal(t, "hello-wasm-world\n", r.stdout)
}

// TestSourcePythonZip: zlib is built in, so office files (zip archives
// with deflated entries) can be written and read, and gzip works; the
// archive written in the sandbox is a valid zip outside it.
func TestSourcePythonZip(t *testing.T) {
	s := sourceSkill(t, `write = ["workspace"]`, "scripts/z.py", map[string]string{
		"scripts/z.py": `import gzip, zipfile, zlib
data = b"hello " * 1000
print("zlib", zlib.decompress(zlib.compress(data)) == data)
print("gzip", gzip.decompress(gzip.compress(b"abc")) == b"abc")
with zipfile.ZipFile("/workspace/report.docx", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("word/document.xml", "<w:document>" + "x" * 5000 + "</w:document>")
with zipfile.ZipFile("/workspace/report.docx") as z:
    i = z.getinfo("word/document.xml")
    print("deflated", i.compress_type == zipfile.ZIP_DEFLATED, i.compress_size < i.file_size)
`,
	})
	ws := t.TempDir()
	r := runSource(t, s, "main", interp.Python, &ScriptRun{Services: host.Services{Workspace: ws}})
	require.NoError(t, r.err)
	require.Equal(t, uint32(0), r.res.ExitCode, "stderr: %s", r.stderr)
	assert.Equal(t, "zlib True\ngzip True\ndeflated True True\n", r.stdout)
	zr, err := zip.OpenReader(filepath.Join(ws, "report.docx"))
	require.NoError(t, err)
	defer zr.Close()
	require.Len(t, zr.File, 1)
	f, err := zr.File[0].Open()
	require.NoError(t, err)
	body, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "<w:document>"+strings.Repeat("x", 5000)+"</w:document>", string(body))
}

// TestSourceJSFetch: fetch goes through http_fetch, so without a net
// grant it is denied with the grant's name.
func TestSourceJSFetch(t *testing.T) {
	s := sourceSkill(t, `net = ["api.example.com"]`, "scripts/x.js", map[string]string{"scripts/x.js": `
fetch('http://api.example.com/x').then(r => console.log('status', r.status)).catch(e => { console.error(e.message); process.exitCode = 4 });
`})
	r := runSource(t, s, "main", interp.JS, &ScriptRun{Granted: noGrant})
	require.NoError(t, r.err)
	assert.Equal(t, uint32(4), r.res.ExitCode, "stdout: %s", r.stdout)
	assert.Contains(t, r.stderr, "api.example.com")
	assert.Contains(t, r.stderr, "denied")
}

// TestSourceNotRunnable: an unknown language, a missing file and a missing
// interpreter are request errors that say what to do.
func TestSourceNotRunnable(t *testing.T) {
	r := sourceRunner(t)
	ctx := context.Background()

	s := sourceSkill(t, "", "scripts/x.rb", map[string]string{"scripts/x.rb": "puts 1\n"})
	_, err := r.RunScript(ctx, s, "main", nil)
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, "Python (.py) and JavaScript (.js)")

	s = sourceSkill(t, "", "scripts/x.py", map[string]string{})
	_, err = r.RunScript(ctx, s, "main", nil)
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, "source scripts/x.py")

	s = sourceSkill(t, "", "scripts/x.py", map[string]string{"scripts/x.py": "print(1)\n"})
	_, err = r.RunScript(ctx, s, "main", &ScriptRun{Interpreters: InstalledInterpreters(t.TempDir())})
	assert.ErrorIs(t, err, ErrNotRunnable)
	assert.ErrorContains(t, err, "skillrun interpreters install python")

	// A script that is a symlink out of the skill is refused.
	outside := filepath.Join(t.TempDir(), "evil.py")
	require.NoError(t, os.WriteFile(outside, []byte("print(1)\n"), 0o644))
	s = sourceSkill(t, "", "scripts/x.py", map[string]string{})
	require.NoError(t, os.MkdirAll(filepath.Join(filepath.Dir(s.Location), "scripts"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(filepath.Dir(s.Location), "scripts", "x.py")))
	_, err = r.RunScript(ctx, s, "main", nil)
	assert.ErrorIs(t, err, ErrNotRunnable)
}

// TestTypeScriptAndESM: a TypeScript script (types stripped in the
// guest) importing a TypeScript module and Node's fs as ES modules, and
// a plain .mjs module, run unchanged.
func TestTypeScriptAndESM(t *testing.T) {
	files := map[string]string{
		"scripts/main.ts": "import { readFileSync } from 'fs';\nimport { count, Counted } from './count';\nimport greet from './greet.mjs';\n" +
			"interface Args { file: string }\nconst a: Args = { file: process.argv[2] };\n" +
			"const c: Counted = count(readFileSync(a.file, 'utf8'));\nconsole.log(greet(a.file) + ': ' + c.lines + ' lines');\n",
		"scripts/count.ts":  "export interface Counted { lines: number }\nexport function count(s: string): Counted {\n  return { lines: s.split('\\n').filter((l: string) => l !== '').length };\n}\n",
		"scripts/greet.mjs": "export default function greet(name) { return `read ${name}`; }\n",
	}
	s := sourceSkill(t, `read = ["workspace"]`, "scripts/main.ts", files)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "in.txt"), []byte("a\nb\nc\n"), 0o644))
	r := runSource(t, s, "main", interp.JS, &ScriptRun{
		Services: host.Services{Workspace: ws},
		Args:     []string{"/workspace/in.txt"},
		Granted:  capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}},
	})
	require.NoError(t, r.err)
	require.Equal(t, uint32(0), r.res.ExitCode, "stderr: %s", r.stderr)
	assert.Equal(t, "read /workspace/in.txt: 3 lines\n", r.stdout)
}
