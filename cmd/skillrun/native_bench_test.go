package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillrun/skillrun/native"
)

// BenchmarkNativeTier measures a script run under the native tier
// (`skillrun run --native`, in process: confinement, the helper's
// start, the program) against the same script run by the real
// interpreter binary, in the same run, for a script that does nothing
// and one that imports numpy. The ratio is the price of confinement.
//
//	go test -run '^$' -bench NativeTier ./cmd/skillrun
func BenchmarkNativeTier(b *testing.B) {
	if err := native.Check(); err != nil {
		b.Skip(err)
	}
	const python = "/usr/bin/python3.11"
	if _, err := os.Stat(python); err != nil {
		b.Skipf("the native baseline %s is not installed", python)
	}
	dir := b.TempDir()
	skill := filepath.Join(dir, "nb")
	write := func(rel, body string) {
		p := filepath.Join(skill, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("SKILL.md", "---\nname: nb\ndescription: Benchmarks.\n---\n")
	write("scripts/hello.py", "print(1 + 1)\n")
	write("scripts/npsum.py", "import numpy\nprint(numpy.arange(10).sum())\n")
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, script := range []string{"hello.py", "npsum.py"} {
		b.Run(script, func(b *testing.B) {
			var confined, bare time.Duration
			for b.Loop() {
				start := time.Now()
				var errOut bytes.Buffer
				if code := run([]string{"run", skill + ":scripts/" + script, "--workspace", ws, "-A", "--native"}, nil, io.Discard, &errOut); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
				confined += time.Since(start)
				cmd := exec.Command(python, filepath.Join(skill, "scripts", script))
				cmd.Dir = ws
				cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"}
				start = time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				bare += time.Since(start)
			}
			n := float64(b.N)
			b.ReportMetric(confined.Seconds()*1e3/n, "ms-native-tier/op")
			b.ReportMetric(bare.Seconds()*1e3/n, "ms-python3.11/op")
			b.ReportMetric(confined.Seconds()/bare.Seconds(), "x-bare")
		})
	}
}
