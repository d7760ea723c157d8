package scripts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// probePy prints what a script can see of how it was started. A run from
// the interpreter's snapshot must print exactly what a fresh run prints.
const probePy = `import atexit, os, sys, time
print("argv", sys.argv)
print("orig_argv", sys.orig_argv)
print("main", __name__, __file__, __spec__, type(__loader__).__name__)
print("cwd", os.getcwd())
print("path", sys.path)
print("env", sorted(os.environ.items()))
print("environb", os.environb.get(b"PROBE_VAR"))
print("stdin", repr(sys.stdin.read()))
print("executable", sys.executable)
print("flags", sys.flags)
print("clock", abs(time.time() - float(os.environ["PROBE_NOW"])) < 600)
print("stdout", sys.stdout.encoding, sys.stdout.line_buffering, sys.stdout.isatty())
import helper
print("helper", helper.__file__)
atexit.register(lambda: print("atexit ran"))
sys.stderr.write("to stderr\n")
what = sys.argv[1] if len(sys.argv) > 1 else ""
if what == "raise":
    raise ValueError("boom")
if what == "exit":
    sys.exit(3)
if what == "oserror":
    open("/workspace/missing.txt")
`

// startProbeSkill is a skill whose script main is probePy, with a module of
// its own beside it (found through sys.path[0]).
func startProbeSkill(t *testing.T) *skills.Skill {
	t.Helper()
	return sourceSkill(t, `env = ["PROBE_VAR", "PROBE_NOW"]
write = ["workspace"]`, "scripts/probe.py", map[string]string{
		"scripts/probe.py":  probePy,
		"scripts/helper.py": "X = 1\n",
	})
}

var (
	freshOnce sync.Once
	freshRT   *Runner
	freshErr  error
)

// freshRunner is a Runner whose Python runs all start from _start.
func freshRunner(t testing.TB) *Runner {
	t.Helper()
	freshOnce.Do(func() { freshRT, freshErr = New(context.Background(), &Options{NoSnapshots: true}) })
	require.NoError(t, freshErr)
	return freshRT
}

// runStartProbe runs the probe skill's script and reports whether it
// started from the interpreter's snapshot (as its audit line says).
func runStartProbe(t *testing.T, r *Runner, s *skills.Skill, args ...string) (sourceRun, bool) {
	t.Helper()
	_, declared, err := declaredOf(s, "main")
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	sr := &ScriptRun{Args: args, Granted: grant(t, declared), Stdin: strings.NewReader("input line\n"),
		Stdout: &stdout, Stderr: &stderr, Interpreters: interpreters(t, interp.Python)}
	sr.Services.Workspace = t.TempDir()
	var fromSnapshot bool
	sr.Services.Auditor = audit.AuditorFunc(func(_ context.Context, e audit.Event) {
		if e.Kind == "run" && strings.Contains(e.Reason, "started from its snapshot") {
			fromSnapshot = true
		}
	})
	res, err := r.RunScript(context.Background(), s, "main", sr)
	return sourceRun{res, stdout.String(), stderr.String(), err}, fromSnapshot
}

// TestPythonSnapshotLikeFresh: a script cannot tell a run from the
// snapshot from a fresh one: argv, environment, working directory,
// sys.path, __main__, stdin, clock, stdio, an uncaught exception's
// traceback, sys.exit's code, atexit.
func TestPythonSnapshotLikeFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs each probe from the snapshot and fresh (1.4 s); the full suite runs it")
	}
	t.Setenv("PROBE_VAR", "probe value")
	t.Setenv("PROBE_NOW", fmt.Sprint(time.Now().Unix()))
	s := startProbeSkill(t)
	for _, args := range [][]string{{"plain", "a b", "ü"}, {"raise"}, {"exit"}, {"oserror"}} {
		t.Run(args[0], func(t *testing.T) {
			fresh, fromSnapshot := runStartProbe(t, freshRunner(t), s, args...)
			assert.False(t, fromSnapshot)
			snap, fromSnapshot := runStartProbe(t, sourceRunner(t), s, args...)
			assert.True(t, fromSnapshot)
			require.NoError(t, fresh.err)
			require.NoError(t, snap.err)
			assert.Equal(t, fresh.stdout, snap.stdout)
			assert.Equal(t, fresh.stderr, snap.stderr)
			assert.Equal(t, fresh.res.ExitCode, snap.res.ExitCode)
			assert.Contains(t, snap.stdout, "atexit ran")
			assert.Contains(t, snap.stdout, "clock True")
		})
	}
	fresh, _ := runStartProbe(t, freshRunner(t), s, "exit")
	assert.Equal(t, uint32(3), fresh.res.ExitCode)
	raised, _ := runStartProbe(t, freshRunner(t), s, "raise")
	assert.Equal(t, uint32(1), raised.res.ExitCode)
	assert.Contains(t, raised.stderr, "ValueError: boom")
}

// TestPythonSnapshotNoLeak: nothing one run does is there in the next:
// module attributes, os.environ, sys.path, the working directory, new
// modules, random's state.
func TestPythonSnapshotNoLeak(t *testing.T) {
	s := sourceSkill(t, `write = ["workspace"]`, "scripts/leak.py", map[string]string{
		"scripts/leak.py": `import json, os, random, sys
print("seen", getattr(json, "leak", None), os.environ.get("LEAK"), "leaky" in sys.modules,
      sys.path.count("/leak"), os.getcwd(), len(sys.argv))
print("random", random.random())
json.leak = 1
os.environ["LEAK"] = "1"
sys.modules["leaky"] = json
sys.path.append("/leak")
os.chdir("/")
`,
	})
	var first []string
	for i := range 3 {
		sr := &ScriptRun{}
		sr.Services.Workspace = t.TempDir()
		run := runSource(t, s, "main", interp.Python, sr)
		require.NoError(t, run.err)
		require.Zero(t, run.res.ExitCode, run.stderr)
		lines := strings.Split(strings.TrimSpace(run.stdout), "\n")
		require.Len(t, lines, 2)
		assert.Equal(t, "seen None None False 0 /workspace 1", lines[0], "run %d", i)
		assert.NotContains(t, first, lines[1], "random is seeded afresh in every run")
		first = append(first, lines[1])
	}
}

// TestPythonSnapshotFallback: a run whose environment would have changed
// the interpreter's initialisation starts fresh, so the variable works.
func TestPythonSnapshotFallback(t *testing.T) {
	t.Setenv("PYTHONWARNINGS", "error")
	s := sourceSkill(t, `env = ["PYTHONWARNINGS"]`, "scripts/warn.py", map[string]string{
		"scripts/warn.py": "import warnings\nwarnings.warn('careful')\nprint('not reached')\n",
	})
	run := runSource(t, s, "main", interp.Python, &ScriptRun{})
	require.NoError(t, run.err)
	assert.Equal(t, uint32(1), run.res.ExitCode)
	assert.Contains(t, run.stderr, "UserWarning: careful")
	assert.Empty(t, run.stdout)
}

// TestPythonSnapshotDiskCache: a Runner keeps the snapshot in its disk
// cache, the next Runner (the next process) starts from that file, and a
// damaged file is made again.
func TestPythonSnapshotDiskCache(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: makes the Python snapshot three times (6 s); the full suite runs it")
	}
	s := sourceSkill(t, "", "scripts/hi.py", map[string]string{"scripts/hi.py": "print('hi')\n"})
	cache := t.TempDir()
	run := func() sourceRun {
		r, err := New(context.Background(), &Options{Sandbox: &sandbox.Options{CacheDir: cache}})
		require.NoError(t, err)
		defer r.Close(context.Background())
		var stdout, stderr bytes.Buffer
		_, err = r.RunScript(context.Background(), s, "main", &ScriptRun{Granted: noGrant, Stdout: &stdout, Stderr: &stderr,
			Interpreters: interpreters(t, interp.Python)})
		return sourceRun{nil, stdout.String(), stderr.String(), err}
	}
	got := run()
	require.NoError(t, got.err)
	assert.Equal(t, "hi\n", got.stdout)
	files, err := filepath.Glob(filepath.Join(cache, "snapshots", "*.snap"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "only its owner may read or change it")

	written := fi.ModTime()
	got = run()
	require.NoError(t, got.err)
	assert.Equal(t, "hi\n", got.stdout)
	fi, err = os.Stat(files[0])
	require.NoError(t, err)
	assert.Equal(t, written, fi.ModTime(), "read, not made again")

	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	data[len(data)/2] ^= 0xff
	require.NoError(t, os.WriteFile(files[0], data, 0o600))
	got = run()
	require.NoError(t, got.err)
	assert.Equal(t, "hi\n", got.stdout, "a damaged snapshot is made again, not used")
	again, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.NotEqual(t, data, again)
}

// TestPythonSnapshotFinish: a run from the snapshot ends as a fresh one
// does: atexit callbacks, __del__ methods of __main__'s objects and of
// the modules it imported, and files left open flushed to the workspace.
func TestPythonSnapshotFinish(t *testing.T) {
	s := sourceSkill(t, `write = ["workspace"]`, "scripts/finish.py", map[string]string{
		"scripts/finish.py": `import atexit, sys
import opener
class Noisy:
    def __del__(self):
        print("del ran")
noisy = Noisy()
f = open("/workspace/main.txt", "w")
f.write("from main")
atexit.register(lambda: print("atexit ran"))
print("body done")
`,
		"scripts/opener.py": "g = open('/workspace/module.txt', 'w')\ng.write('from a module')\n",
	})
	for _, r := range []*Runner{freshRunner(t), sourceRunner(t)} {
		sr := &ScriptRun{}
		ws := t.TempDir()
		sr.Services.Workspace = ws
		_, declared, err := declaredOf(s, "main")
		require.NoError(t, err)
		var stdout, stderr bytes.Buffer
		sr.Granted, sr.Stdout, sr.Stderr, sr.Interpreters = grant(t, declared), &stdout, &stderr, interpreters(t, interp.Python)
		res, err := r.RunScript(context.Background(), s, "main", sr)
		require.NoError(t, err)
		assert.Zero(t, res.ExitCode, stderr.String())
		assert.Equal(t, "body done\natexit ran\ndel ran\n", stdout.String())
		for file, want := range map[string]string{"main.txt": "from main", "module.txt": "from a module"} {
			got, err := os.ReadFile(filepath.Join(ws, file))
			require.NoError(t, err)
			assert.Equal(t, want, string(got))
		}
	}
}

// TestPythonSnapshotSmallMemory: a run whose memory limit leaves less
// than snapshotHeadroom beyond the snapshot starts fresh, and still runs.
func TestPythonSnapshotSmallMemory(t *testing.T) {
	s := sourceSkill(t, `memory = "40MiB"`, "scripts/hi.py", map[string]string{"scripts/hi.py": "print('hi')\n"})
	run, fromSnapshot := runStartProbe(t, sourceRunner(t), s)
	require.NoError(t, run.err)
	assert.Equal(t, "hi\n", run.stdout)
	assert.False(t, fromSnapshot)
}

// TestPythonSnapshotDeterministic: a deterministic script started from
// the snapshot gets the same clock and random numbers every run (its
// snapshot was made in deterministic mode too), and they are the ones a
// deterministic run gets every time, not the snapshot's.
func TestPythonSnapshotDeterministic(t *testing.T) {
	s := sourceSkill(t, "", "scripts/det.py", map[string]string{
		"scripts/det.py": "import random, time, os\nprint(time.time(), random.random(), os.urandom(4).hex())\n",
	})
	outs := map[bool]map[string]bool{true: {}, false: {}}
	for _, det := range []bool{true, false, true, false} {
		s.Manifest.Scripts["main"].Deterministic = det
		run, fromSnapshot := runStartProbe(t, sourceRunner(t), s)
		require.NoError(t, run.err)
		require.True(t, fromSnapshot)
		outs[det][run.stdout] = true
	}
	assert.Len(t, outs[true], 1, "deterministic runs agree")
	assert.Len(t, outs[false], 2, "other runs differ")
	for out := range outs[true] {
		assert.Contains(t, out, "1640995200.", "the virtual clock's 2022-01-01")
	}
}
