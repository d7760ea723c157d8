package scripts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
)

// probeSh prints what a shell command line can see of how it was
// started; a run from the shell's snapshot must print what a fresh one
// prints.
const probeSh = `echo "args $0 $# $*"
echo "pwd $(pwd) PWD=$PWD"
echo "env PROBE_VAR=${PROBE_VAR-unset} TZ=${TZ-unset} HOME=${HOME-unset}"
env | sort | grep -v '^_=' | sed 's/^/environ /'
echo "hour at 0: $(date -d @0 +%H)"
echo "mounts $(ls / | tr '\n' ' ')"
cat data.txt
read -r line && echo "stdin $line"
mkdir -p sub && cd sub && echo "cd $(pwd)" && cd ..
echo written > out.txt
echo "to stderr" >&2
exit "${1:-0}"
`

// shellProbe runs probeSh with args and env on a fresh workspace and
// reports what it printed, its exit code and whether it started from the
// snapshot (the audit line says so).
type shellProbe struct {
	stdout, stderr, out string
	code                uint32
	fromSnapshot        bool
}

func runShellProbe(t *testing.T, r *Runner, env []string, args ...string) shellProbe {
	t.Helper()
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "data.txt"), []byte("data line\n"), 0o644))
	var stdout, stderr bytes.Buffer
	var p shellProbe
	sr := &ShellRun{ScriptRun: ScriptRun{
		Services: host.Services{Workspace: ws, Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
			if e.Kind == "run" && strings.Contains(e.Reason, "started from its snapshot") {
				p.fromSnapshot = true
			}
		})},
		Args:  append([]string{"-c", probeSh, "probe"}, args...),
		Stdin: strings.NewReader("input line\n"), Stdout: &stdout, Stderr: &stderr,
		Granted: ShellDeclares(), Interpreters: interpreters(t, interp.Shell),
	}, Env: env}
	res, err := r.RunShell(context.Background(), sr)
	require.NoError(t, err, stderr.String())
	out, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	require.NoError(t, err)
	p.stdout, p.stderr, p.out, p.code = stdout.String(), stderr.String(), string(out), res.ExitCode
	return p
}

// TestShellSnapshotFirstRunFresh: a Runner's first run of the shell
// starts fresh and makes no snapshot (a one-shot process would pay for
// it and never use it); its second run starts from the snapshot.
func TestShellSnapshotFirstRunFresh(t *testing.T) {
	r, err := New(context.Background(), nil)
	require.NoError(t, err)
	defer r.Close(context.Background())
	assert.False(t, runShellProbe(t, r, nil).fromSnapshot, "first run")
	assert.True(t, runShellProbe(t, r, nil).fromSnapshot, "second run")
	assert.True(t, runShellProbe(t, r, nil).fromSnapshot, "third run")
}

// TestShellSnapshotLikeFresh: a shell command cannot tell a run from the
// shell's snapshot from a fresh one: arguments, environment, working
// directory, mounts, stdin, files, exit code.
func TestShellSnapshotLikeFresh(t *testing.T) {
	runShellProbe(t, sourceRunner(t), nil) // the snapshot is made on a second run
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{"PROBE_VAR=one", "TZ=Asia/Tokyo"}, []string{"a b", "ü"}},
		{[]string{"PROBE_VAR=two", "TZ=UTC"}, []string{"7"}},
		{nil, nil},
	} {
		fresh := runShellProbe(t, freshRunner(t), c.env, c.args...)
		snap := runShellProbe(t, sourceRunner(t), c.env, c.args...)
		assert.False(t, fresh.fromSnapshot)
		assert.True(t, snap.fromSnapshot)
		assert.Equal(t, fresh, shellProbe{snap.stdout, snap.stderr, snap.out, snap.code, false})
		assert.Contains(t, snap.stdout, "stdin input line")
		assert.Contains(t, snap.stdout, "pwd /workspace PWD=/workspace")
	}
	assert.Equal(t, uint32(7), runShellProbe(t, sourceRunner(t), nil, "7").code)
}

// TestShellSnapshotNoLeak: nothing a run does is there in the next run
// from the snapshot (variables, exports, functions, options, the working
// directory, /tmp), and each run has its own random seed ($RANDOM, in
// the shell and in a subshell).
func TestShellSnapshotNoLeak(t *testing.T) {
	r := sourceRunner(t)
	ws := t.TempDir()
	run := func(cmd string) string {
		var stdout, stderr bytes.Buffer
		var fromSnapshot bool
		res, err := r.RunShell(context.Background(), &ShellRun{ScriptRun: ScriptRun{
			Services: host.Services{Workspace: ws, Auditor: audit.AuditorFunc(func(_ context.Context, e audit.Event) {
				fromSnapshot = fromSnapshot || e.Kind == "run" && strings.Contains(e.Reason, "started from its snapshot")
			})},
			Args: []string{"-c", cmd}, Stdout: &stdout, Stderr: &stderr,
			Granted: ShellDeclares(), Interpreters: interpreters(t, interp.Shell),
		}})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode, stderr.String())
		require.True(t, fromSnapshot || cmd == "true", "run from the snapshot")
		return stdout.String()
	}
	run("true") // the snapshot is made on a second run
	check := `echo "${LEAK-unset} ${EXPORTED-unset} $(type leakfn >/dev/null 2>&1 && echo fn || echo nofn) $([[ -o xtrace ]] && echo x || echo nox) $(pwd) $(ls /tmp | wc -l)"`
	before := run(check)
	assert.Equal(t, "unset unset nofn nox /workspace 0\n", before)
	run(`LEAK=1; export EXPORTED=1; leakfn() { :; }; set -x; cd /tmp; echo x > /tmp/left; echo done`)
	assert.Equal(t, before, run(check), "nothing of the last run is left")

	seen := map[string]bool{}
	for range 4 {
		seen[run(`echo "$RANDOM $(echo $RANDOM)"`)] = true
	}
	assert.Len(t, seen, 4, "each run draws its own random numbers")
}

// probeJS prints what a script can see of how it was started, and a
// random number.
const probeJS = `const fs = require("fs");
console.log("argv", JSON.stringify(process.argv.slice(1)));
console.log("cwd", process.cwd());
console.log("env", process.env.PROBE_VAR, Object.keys(process.env).sort().join(","));
console.log("data", fs.readFileSync("data.txt", "utf8").trim());
fs.writeFileSync("out.txt", "written");
console.error("to stderr");
globalThis.leak = (globalThis.leak || 0) + 1;
console.log("leak", globalThis.leak);
console.log("random", Math.random());
if (process.argv[2] === "exit") process.exit(4);
`

// TestJSSnapshotLikeFresh: a JavaScript run from the interpreter's
// snapshot prints what a fresh run prints (but its random numbers), and
// nothing of one run is in the next.
func TestJSSnapshotLikeFresh(t *testing.T) {
	t.Setenv("PROBE_VAR", "probe value")
	s := sourceSkill(t, `env = ["PROBE_VAR"]
write = ["workspace"]`, "scripts/probe.js", map[string]string{"scripts/probe.js": probeJS})
	run := func(r *Runner, args ...string) (shellProbe, string) {
		_, declared, err := declaredOf(s, "main")
		require.NoError(t, err)
		ws := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(ws, "data.txt"), []byte("data line\n"), 0o644))
		var stdout, stderr bytes.Buffer
		var p shellProbe
		sr := &ScriptRun{Args: args, Granted: grant(t, declared), Stdout: &stdout, Stderr: &stderr,
			Interpreters: interpreters(t, interp.JS)}
		sr.Services.Workspace = ws
		sr.Services.Auditor = audit.AuditorFunc(func(_ context.Context, e audit.Event) {
			p.fromSnapshot = p.fromSnapshot || e.Kind == "run" && strings.Contains(e.Reason, "started from its snapshot")
		})
		res, err := r.RunScript(context.Background(), s, "main", sr)
		require.NoError(t, err, stderr.String())
		out, err := os.ReadFile(filepath.Join(ws, "out.txt"))
		require.NoError(t, err)
		// The random number is the line that must differ.
		kept, random := []string{}, ""
		for line := range strings.Lines(stdout.String()) {
			if strings.HasPrefix(line, "random ") {
				random = line
				continue
			}
			kept = append(kept, line)
		}
		p.stdout, p.stderr, p.out, p.code = strings.Join(kept, ""), stderr.String(), string(out), res.ExitCode
		return p, random
	}
	run(sourceRunner(t), "warm-up") // the snapshot is made on a second run
	randoms := map[string]bool{}
	for _, args := range [][]string{{"plain", "a b"}, {"exit"}} {
		fresh, _ := run(freshRunner(t), args...)
		snap, random := run(sourceRunner(t), args...)
		again, random2 := run(sourceRunner(t), args...)
		assert.False(t, fresh.fromSnapshot)
		assert.True(t, snap.fromSnapshot)
		assert.Equal(t, fresh, shellProbe{snap.stdout, snap.stderr, snap.out, snap.code, false})
		assert.Equal(t, snap, again, "the same run again: nothing of the last one is left")
		assert.Contains(t, snap.stdout, "leak 1\n")
		randoms[random], randoms[random2] = true, true
	}
	assert.Len(t, randoms, 4, "each run draws its own random numbers")
	exited, _ := run(sourceRunner(t), "exit")
	assert.Equal(t, uint32(4), exited.code)
}
