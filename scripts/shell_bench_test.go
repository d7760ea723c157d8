package scripts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
)

// Benchmarks of the sandboxed shell, each against /bin/bash (with the
// host's coreutils) doing the same work in the same run:
//
//	BenchmarkShellCommand   echo hi: what a command costs beyond its work
//	                        (the shell starts from its snapshot)
//	BenchmarkShellPipeline  cat f | grep x | wc -l over a 2,000-line file
//	BenchmarkShellScript    a 200-line script: loops, functions, arrays,
//	                        parameter expansion, arithmetic, case, here-docs,
//	                        command substitutions and a few commands
//
// x-bash is the shell's time (RunShell, warm: the module compiled) over
// bash's (a subprocess). Run with: go test -run '^$' -bench Shell ./scripts

// nativeBash is the baseline shell, by absolute path.
const nativeBash = "/bin/bash"

func benchShell(b *testing.B, files map[string]string, command, want string) {
	if _, err := os.Stat(nativeBash); err != nil {
		b.Skipf("no %s for the baseline: %v", nativeBash, err)
	}
	r := sourceRunner(b)
	find := interpreters(b, interp.Shell)
	ws := b.TempDir()
	for name, body := range files {
		require.NoError(b, os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644))
	}
	ctx := context.Background()
	run := func() {
		var out, errOut bytes.Buffer
		res, err := r.RunShell(ctx, &ShellRun{ScriptRun: ScriptRun{
			Services: host.Services{Workspace: ws}, Args: []string{"-c", command},
			Stdout: &out, Stderr: &errOut, Granted: ShellDeclares(), Interpreters: find,
		}})
		require.NoError(b, err, "shell: stderr %q", errOut.String())
		require.Zero(b, res.ExitCode, "shell: exit code; stderr %q", errOut.String())
		require.Contains(b, out.String(), want, "shell: stdout")
	}
	run() // compile outside the timing
	var shellTime, bashTime time.Duration
	runs := 0
	for b.Loop() {
		start := time.Now()
		run()
		shellTime += time.Since(start)
		b.StopTimer()
		cmd := exec.Command(nativeBash, "-c", command)
		cmd.Dir = ws
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"}
		start = time.Now()
		out, err := cmd.Output()
		bashTime += time.Since(start)
		require.NoError(b, err, "bash")
		require.Contains(b, string(out), want, "bash")
		runs++
		b.StartTimer()
	}
	b.ReportMetric(float64(bashTime.Nanoseconds())/float64(runs), "bash-ns/op")
	b.ReportMetric(float64(shellTime)/float64(bashTime), "x-bash")
}

func BenchmarkShellCommand(b *testing.B) {
	benchShell(b, nil, "echo hi", "hi")
}

func BenchmarkShellPipeline(b *testing.B) {
	var f strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&f, "line %d %s\n", i, []string{"alpha", "beta", "gamma", "x-ray"}[i%4])
	}
	benchShell(b, map[string]string{"f.txt": f.String()}, "cat f.txt | grep x | wc -l", "500")
}

// shellScript200 is the 200-line script of BenchmarkShellScript: the
// constructs published skills' scripts use, each a few times.
func shellScript200() string {
	var s strings.Builder
	s.WriteString("set -euo pipefail\nrm -f words.txt log.txt\n")
	s.WriteString("total=0\ndeclare -a items=()\n")
	s.WriteString("add() {\n  local n=$1\n  total=$(( total + n ))\n  items+=(\"item-$n\")\n}\n")
	s.WriteString("label() {\n  case $1 in\n    *0) echo zero ;;\n    *5) echo five ;;\n    *) echo other ;;\n  esac\n}\n")
	for i := range 30 {
		fmt.Fprintf(&s, "add %d\n", i)
		fmt.Fprintf(&s, "l=$(label %d)\n", i)
		fmt.Fprintf(&s, "[[ $l == zero ]] && echo \"zero at %d\" >> log.txt || true\n", i)
		fmt.Fprintf(&s, "name=\"file-%d.txt\"; echo \"${name%%.txt} ${#name}\" > /dev/null\n", i)
		s.WriteString("for w in a b c; do echo \"$w\" >> words.txt; done\n")
	}
	s.WriteString("cat <<EOF > summary.txt\ntotal $total\ncount ${#items[@]}\nEOF\n")
	s.WriteString("sort words.txt | uniq -c | head -n 3 > counts.txt\n")
	s.WriteString("echo \"lines $(wc -l < words.txt) total $total\"\n")
	for s.Len() > 0 && strings.Count(s.String(), "\n") < 200 {
		s.WriteString(": filler\n")
	}
	return s.String()
}

func BenchmarkShellScript(b *testing.B) {
	benchShell(b, nil, shellScript200(), "lines 90 total 435")
}
