package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkSkillTest runs 100 cases of a Wasm script (the word-count C
// example) with `skillrun test` at --parallel 1 and 4, against the same
// 100 invocations as `skillrun run` processes one by one (what an author
// scripting the checks would do), measured in the same run. It reports
// x-runs: the test command's time over the 100 runs'.
//
// Run with: go test -run '^$' -bench SkillTest ./cmd/skillrun
func BenchmarkSkillTest(b *testing.B) {
	if _, err := exec.LookPath("clang"); err != nil {
		b.Skip("clang for wasm32-wasi is not installed")
	}
	tmp := b.TempDir()
	skill := filepath.Join(tmp, "word-count")
	if err := os.CopyFS(skill, os.DirFS("../../examples/word-count")); err != nil {
		b.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(skill, "tests")); err != nil {
		b.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"build", skill}, strings.NewReader(""), &out, &errOut); code != 0 {
		b.Fatalf("build: %s", errOut.String())
	}
	bin := filepath.Join(tmp, "skillrun")
	if msg, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, msg)
	}
	const n = 100
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(filepath.Join(skill, "tests"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		text := strings.Repeat("word ", i+1) + "\n"
		name := fmt.Sprintf("f%03d.txt", i)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		c := fmt.Sprintf("script = \"count\"\nargs = [%q]\n[grant]\nread = [\"workspace\"]\n-- workspace/%s --\n%s-- stdout --\n%8d%8d%8d %s\n",
			name, name, text, 1, i+1, len(text), name)
		if err := os.WriteFile(filepath.Join(skill, "tests", fmt.Sprintf("c%03d.txtar", i)), []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Warm the compilation cache once, outside the timings.
	if msg, err := exec.Command(bin, "run", skill+":count", "--workspace", ws, "--allow-read", "--", "f000.txt").CombinedOutput(); err != nil {
		b.Fatalf("skillrun run: %v\n%s", err, msg)
	}

	var runs, p1, p4 time.Duration
	rounds := 0
	for b.Loop() {
		start := time.Now()
		for i := range n {
			cmd := exec.Command(bin, "run", skill+":count", "--workspace", ws, "--allow-read", "--", fmt.Sprintf("f%03d.txt", i))
			if msg, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("skillrun run: %v\n%s", err, msg)
			}
		}
		runs += time.Since(start)
		for _, p := range []struct {
			par string
			d   *time.Duration
		}{{"1", &p1}, {"4", &p4}} {
			start = time.Now()
			cmd := exec.Command(bin, "test", "--parallel", p.par, skill)
			if msg, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("skillrun test: %v\n%s", err, msg)
			}
			*p.d += time.Since(start)
		}
		rounds++
	}
	b.ReportMetric(float64(runs.Milliseconds())/float64(rounds), "runs-ms")
	b.ReportMetric(float64(p1.Milliseconds())/float64(rounds), "test-p1-ms")
	b.ReportMetric(float64(p4.Milliseconds())/float64(rounds), "test-p4-ms")
	b.ReportMetric(float64(p1)/float64(runs), "p1-x-runs")
	b.ReportMetric(float64(p4)/float64(runs), "p4-x-runs")
}
