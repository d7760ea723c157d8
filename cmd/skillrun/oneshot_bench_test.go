//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillrun/skillrun/internal/interp"
)

// BenchmarkOneShot measures one-shot commands as a person or an agent's
// Bash tool starts them: a real skillrun process (this test binary under
// the name skillrun, which TestMain runs as the command) handing its work
// to a warm resident, against the native program doing the same work,
// the two alternated in the same run. x-native is the ratio; ms/op are
// each side's mean.
//
//	go test -run '^$' -bench OneShot ./cmd/skillrun
func BenchmarkOneShot(b *testing.B) {
	const python, sh = "/usr/bin/python3.11", "/bin/sh"
	for _, p := range []string{python, sh} {
		if _, err := os.Stat(p); err != nil {
			b.Skipf("the native baseline %s is not installed", p)
		}
	}
	dir, err := interp.DefaultDir()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := interp.Find(dir, interp.Python); err != nil {
		b.Skip(err)
	}
	bin, _ := startResident(b) // resident_leftovers_test.go
	tmp := b.TempDir()

	examples, err := filepath.Abs("../../examples")
	if err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(tmp, "ws")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(examples, "workspace"))); err != nil {
		b.Fatal(err)
	}
	skill := filepath.Join(tmp, "hello")
	for rel, body := range map[string]string{
		"SKILL.md":         "---\nname: hello\ndescription: Prints 2.\n---\n",
		"scripts/hello.py": "print(1 + 1)\n",
	} {
		p := filepath.Join(skill, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	script := filepath.Join(ws, "two.sh")
	if err := os.WriteFile(script, []byte("echo a\nx=$(echo b)\necho \"$x\"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	report := filepath.Join(examples, "py-csv-report")
	cases := []struct {
		name           string
		skillrun, base []string
	}{
		{"print", []string{"run", skill + ":scripts/hello.py", "--workspace", ws, "-A"}, []string{python, filepath.Join(skill, "scripts", "hello.py")}},
		{"py-csv-report", []string{"run", report, "--workspace", ws, "-A", "--", "sales.csv"},
			[]string{python, filepath.Join(report, "scripts", "report.py"), "sales.csv"}},
		{"shell-c", []string{"shell", "--workspace", ws, "-A", "-c", "echo hi"}, []string{sh, "-c", "echo hi"}},
		{"shell-script", []string{"shell", "--workspace", ws, "-A", "two.sh"}, []string{sh, "two.sh"}},
		// No native program validates a skill: the baseline is a process
		// start (/bin/true); the target is absolute (10 ms).
		{"validate", []string{"validate", report}, []string{"/bin/true"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			start := func(args []string, env ...string) *exec.Cmd {
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), env...)
				cmd.Stdout = io.Discard
				var errOut bytes.Buffer
				cmd.Stderr = &errOut
				if err := cmd.Run(); err != nil {
					b.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, errOut.String())
				}
				return cmd
			}
			if c.name == "py-csv-report" {
				// The script writes out/report.md: the native run needs its
				// library on the path and the workspace named, as the skill's run
				// has them.
				c.base = append([]string{"env", "PYTHONPATH=" + filepath.Join(report, "lib"), "WORKSPACE=" + ws}, c.base...)
			}
			start(append([]string{bin}, c.skillrun...)) // warm the resident
			var ours, native time.Duration
			for b.Loop() {
				t := time.Now()
				start(append([]string{bin}, c.skillrun...))
				ours += time.Since(t)
				t = time.Now()
				start(c.base)
				native += time.Since(t)
			}
			n := float64(b.N)
			b.ReportMetric(ours.Seconds()*1e3/n, "ms-skillrun/op")
			b.ReportMetric(native.Seconds()*1e3/n, "ms-native/op")
			b.ReportMetric(ours.Seconds()/native.Seconds(), "x-native")
		})
	}
}
