package scripts

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
)

// The attacks on the limits of runs a script starts with exec: each child
// used to get fresh limits, so a script starting children multiplied
// them. A hostile skill's Python script starts them through subprocess,
// as a published one would.

// tmpBytesLine is what the scripts below print last: the bytes in /tmp
// once their children are done.
var tmpBytesLine = regexp.MustCompile(`tmp bytes (\d+)`)

// skipUnderRace skips the guest-heavy tests below under -race: the race
// detector does not instrument the guests they measure, and their dozens
// of CPython runs take minutes under it. `make test` runs them again
// without -race.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("run without -race: `make test` runs it in a second go test")
	}
}

func tmpBytes(t *testing.T, stdout string) int64 {
	t.Helper()
	m := tmpBytesLine.FindStringSubmatch(stdout)
	require.NotNil(t, m, "no 'tmp bytes' line in:\n%s", stdout)
	n, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	return n
}

// TestAttackNestedTmpQuota: the script writes 20 MiB to /tmp, then starts
// four children that write 30 MiB each and one whose 10 MiB of output is
// captured (a file of /tmp the host writes), under a 96 MiB memory limit
// and so a 96 MiB /tmp. Each child used to get a new 96 MiB quota over
// the same folder (140 MiB were left there); now they all write against
// the one quota, and see what their caller and siblings wrote.
func TestAttackNestedTmpQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: nested runs write some 140 MiB to /tmp (1.5 s); the full suite runs it")
	}
	skipUnderRace(t)
	src := `import os, subprocess, sys
MiB = 1 << 20
def fill(name, n):
    try:
        with open(name, "wb") as f:
            for _ in range(n):
                f.write(b"x" * MiB)
    except OSError as e:
        print(name, "stopped:", e, flush=True)
if len(sys.argv) > 1:
    fill("/tmp/child-" + sys.argv[1], 30)
    sys.exit(0)
fill("/tmp/parent", 20)
for i in range(4):
    subprocess.run([sys.executable, __file__, str(i)])
r = subprocess.run([sys.executable, "-c", "import sys\nfor _ in range(10): sys.stdout.write('y' * (1 << 20))"], capture_output=True)
print("captured", len(r.stdout), "exit", r.returncode, flush=True)
print("tmp bytes", sum(os.path.getsize(os.path.join("/tmp", n)) for n in os.listdir("/tmp")))
`
	s := sourceSkill(t, `memory = "96MiB"`+"\n"+`output = "64MiB"`, "scripts/x.py", map[string]string{"scripts/x.py": src})
	r := runSource(t, s, "main", interp.Python, nil)
	require.NoError(t, r.err, r.stderr)
	const quota = 96 << 20
	got := tmpBytes(t, r.stdout)
	assert.LessOrEqual(t, got, int64(quota), "the script and its children left more than the one /tmp quota:\n%s", r.stdout)
	assert.Contains(t, r.stdout, "stopped:", "a child's write past the shared quota fails")
	// What is left over of the quota after the files bounds the captured output.
	m := regexp.MustCompile(`captured (\d+) exit`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	captured, _ := strconv.ParseInt(m[1], 10, 64)
	assert.LessOrEqual(t, got+captured, int64(quota), "captured output counts against /tmp's quota:\n%s", r.stdout)
}

// TestAttackNestedOutputBudget: under a 1 MiB output limit, six children
// that inherit stdout print 900 KB each (they used to get 5.4 MB through,
// each child with a fresh 1 MiB); now they spend from their caller's
// budget, and the run fails with the output limit.
func TestAttackNestedOutputBudget(t *testing.T) {
	skipUnderRace(t)
	src := `import subprocess, sys
if len(sys.argv) > 1:
    for _ in range(9):
        sys.stdout.write("z" * 99999 + "\n")
    sys.stdout.flush()
    sys.exit(0)
for i in range(6):
    r = subprocess.run([sys.executable, __file__, str(i)])
`
	s := sourceSkill(t, `output = "1MiB"`, "scripts/x.py", map[string]string{"scripts/x.py": src})
	r := runSource(t, s, "main", interp.Python, nil)
	assert.LessOrEqual(t, len(r.stdout)+len(r.stderr), 1<<20, "stdout and stderr together passed the one output budget")
	require.Error(t, r.err, "the run's output budget ran out: the run fails with the output limit")
	assert.True(t, errors.Is(r.err, sandbox.ErrOutputLimit), "%v", r.err)
	assert.Greater(t, len(r.stdout), 1<<19, "the children's output is there, up to the budget")
}

// TestAttackNestedMemory: a script holding 40 MiB starts itself to the
// nesting limit under a 128 MiB memory limit. Every level used to get the
// whole 128 MiB while its callers kept theirs (five levels held 200 MiB
// of bytearrays); now a level gets what its callers left, and the one
// that does not fit fails with exit 125 and a message naming the limit.
func TestAttackNestedMemory(t *testing.T) {
	skipUnderRace(t)
	src := `import subprocess, sys
level = int(sys.argv[1]) if len(sys.argv) > 1 else 0
hold = bytearray(40 << 20)
print("level", level, "holds 40MiB", flush=True)
try:
    r = subprocess.run([sys.executable, __file__, str(level + 1)], stderr=subprocess.PIPE, text=True)
    print("level", level + 1, "exit", r.returncode, "stderr:", r.stderr.strip().replace("\n", " | ")[-600:], flush=True)
except OSError as e:
    print("level", level + 1, "not started:", e, flush=True)
`
	s := sourceSkill(t, `memory = "128MiB"`, "scripts/x.py", map[string]string{"scripts/x.py": src})
	r := runSource(t, s, "main", interp.Python, nil)
	require.NoError(t, r.err, r.stderr)
	holding := strings.Count(r.stdout, "holds 40MiB")
	assert.LessOrEqual(t, holding*40, 128, "levels holding 40 MiB at once passed the one 128 MiB limit:\n%s", r.stdout)
	assert.GreaterOrEqual(t, holding, 1, r.stdout)
	assert.Regexp(t, `level \d exit 125 stderr:.*memory limit reached.*--memory`, r.stdout,
		"the level that does not fit fails cleanly, saying the limit is shared and how to raise it")
}

// TestAttackNestedShellTmpQuota: `skillrun shell` running four node
// commands (each a run of its own) that write 30 MiB each to /tmp, and a
// pipeline whose first command's 8 MiB go through a file of /tmp, under a
// 64 MiB memory limit (so a 64 MiB /tmp): the commands and the shell
// write against one quota. Each command used to get a new 64 MiB quota,
// and captured output none at all.
func TestAttackNestedShellTmpQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: four node runs write 30 MiB each to /tmp (4 s); the full suite runs it")
	}
	skipUnderRace(t)
	interpreters(t, interp.JS)
	g := shellGrant
	g.Memory = capabilities.Size(64 << 20)
	cmd := `for i in 1 2 3 4; do
  node -e "const fs = require('fs'); const s = 'x'.repeat(1 << 20);
try { for (let k = 0; k < 30; k++) fs.appendFileSync('/tmp/f$i', s); } catch (e) { console.log('command $i stopped:', e.message); }"
done
node -e "const s = 'y'.repeat(1 << 20); for (let k = 0; k < 8; k++) process.stdout.write(s);" | wc -c
wc -c /tmp/f1 /tmp/f2 /tmp/f3 /tmp/f4 | tail -1
`
	res, out, errOut, _, err := runShell(t, cmd, nil, g)
	require.NoError(t, err, errOut)
	require.Equal(t, uint32(0), res.ExitCode, out+errOut)
	m := regexp.MustCompile(`(?m)^\s*(\d+) total$`).FindStringSubmatch(out)
	require.NotNil(t, m, "no total in:\n%s\n%s", out, errOut)
	files, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	assert.LessOrEqual(t, files, int64(64<<20), "the shell's commands left more than the one /tmp quota:\n%s\n%s", out, errOut)
	assert.Contains(t, out, "stopped", "a command's write past the shared quota fails:\n%s\n%s", out, errOut)
	piped := regexp.MustCompile(`(?m)^(\d+)$`).FindStringSubmatch(out)
	require.NotNil(t, piped, out)
	n, _ := strconv.ParseInt(piped[1], 10, 64)
	assert.Less(t, n, int64(8<<20), "the pipeline's captured output counts against the used-up quota:\n%s\n%s", out, errOut)
}

// TestAttackNestedShellOutputBudget: under a 1 MiB output limit, the
// shell starts six node commands that print 900 KB each to the stdout
// they inherit (5.4 MB used to get through); they spend from the shell's
// budget, and the run fails with the output limit.
func TestAttackNestedShellOutputBudget(t *testing.T) {
	skipUnderRace(t)
	interpreters(t, interp.JS)
	g := shellGrant
	g.Output = capabilities.Size(1 << 20)
	cmd := `for i in 1 2 3 4 5 6; do node -e "process.stdout.write('z'.repeat(900000))"; done`
	_, out, errOut, _, err := runShell(t, cmd, nil, g)
	assert.LessOrEqual(t, len(out)+len(errOut), 1<<20, "stdout and stderr together passed the one output budget")
	assert.Greater(t, len(out), 1<<19, "the commands' output is there, up to the budget")
	require.Error(t, err)
	assert.True(t, errors.Is(err, sandbox.ErrOutputLimit), "%v", err)
}

// TestAttackNestedShellMemory: a node script holding 40 MiB starts itself
// to the nesting limit from the shell, under a 128 MiB memory limit.
// Every level used to get the whole 128 MiB while its callers kept
// theirs; now the level that does not fit fails with exit 125 and a
// message naming the limit.
func TestAttackNestedShellMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: node runs nested to the limit, 40 MiB each (6 s); the full suite runs it")
	}
	skipUnderRace(t)
	interpreters(t, interp.JS)
	g := shellGrant
	g.Memory = capabilities.Size(128 << 20)
	hold := `const cp = require('child_process');
const level = Number(process.argv[2] || 0);
const hold = new Uint8Array(40 << 20); hold.fill(1);
console.log('level', level, 'holds 40MiB');
const r = cp.spawnSync('node', ['/workspace/hold.js', String(level + 1)]);
process.stdout.write(String(r.stdout));
console.log('level', level + 1, 'exit', r.status, 'stderr:', String(r.stderr).replace(/\n/g, ' | ').slice(-600));
`
	res, out, errOut, _, err := runShell(t, "node /workspace/hold.js", map[string]string{"hold.js": hold}, g)
	require.NoError(t, err, errOut)
	require.Equal(t, uint32(0), res.ExitCode, out+errOut)
	holding := strings.Count(out, "holds 40MiB")
	assert.LessOrEqual(t, holding*40, 128, "levels holding 40 MiB at once passed the one 128 MiB limit:\n%s", out)
	assert.GreaterOrEqual(t, holding, 1, out)
	assert.Regexp(t, `level \d exit 125 stderr:.*memory limit reached.*--memory`, out,
		"the level that does not fit fails cleanly, saying the limit is shared and how to raise it")
}
