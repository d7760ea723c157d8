package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// nativePython is the baseline's interpreter: the real binary, never a
// version manager's shim (see scripts' nativeBinaries).
func nativePython(b *testing.B) string {
	const python = "/usr/bin/python3.11"
	if _, err := os.Stat(python); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			b.Fatalf("%s is required for the baseline: %v", python, err)
		}
		b.Skip(err)
	}
	return python
}

// BenchmarkMCPPythonTool measures a call of a Python script tool over
// `skillrun mcp` (stdio, the official SDK's client), client to result:
// the py-csv-report example on the example workspace, warm (the server
// has run it once, so the interpreter is compiled and its snapshot made).
// Metric x-native is its ratio to the same script run by
// /usr/bin/python3.11 as a process, measured in the same run.
func BenchmarkMCPPythonTool(b *testing.B) {
	python := nativePython(b)
	needPython(b)
	skill, err := filepath.Abs(filepath.Join("..", "..", "examples", "py-csv-report"))
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "..", "examples", "workspace"))); err != nil {
		b.Fatal(err)
	}
	mcpToolBench(b, skill, ws, "[skills.py-csv-report]\nread = [\"workspace\"]\nwrite = [\"workspace/out\"]\n",
		"py-csv-report__report", []string{"sales.csv"}, "total revenue 746.30", func() *exec.Cmd {
			cmd := exec.Command(python, filepath.Join(skill, "scripts", "report.py"), "sales.csv")
			cmd.Env = []string{"PATH=/usr/bin:/bin", "WORKSPACE=" + ws, "PYTHONPATH=" + filepath.Join(skill, "lib")}
			return cmd
		})
}

// BenchmarkMCPPackagesTool is BenchmarkMCPPythonTool for a script that
// uses a compiled package built into python.wasm: a Pillow thumbnail of
// a 2400x1600 JPEG, against Debian's python3.11 with python3-pil.
func BenchmarkMCPPackagesTool(b *testing.B) {
	python := nativePython(b)
	needPython(b)
	dir := b.TempDir()
	skill := filepath.Join(dir, "thumbs")
	src := "import os\nfrom PIL import Image\nws = os.environ.get(\"WORKSPACE\", \"/workspace\")\n" +
		"im = Image.open(os.path.join(ws, \"photo.jpg\"))\nim.thumbnail((320, 240))\n" +
		"im.save(os.path.join(ws, \"thumb.png\"))\nim.save(os.path.join(ws, \"thumb.jpg\"), quality=80)\nprint(\"thumb\", im.size)\n"
	for name, body := range map[string]string{
		"SKILL.md":         "---\nname: thumbs\ndescription: Make a thumbnail of photo.jpg\n---\n",
		"scripts/thumb.py": src,
		"skill.toml": "version = 1\n[capabilities]\nread = [\"workspace\"]\nwrite = [\"workspace\"]\nmemory = \"512MiB\"\n" +
			"[scripts.thumb]\nsource = \"scripts/thumb.py\"\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(skill, name)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(skill, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	prep := exec.Command(python, "-c", "from PIL import Image, ImageDraw\n"+
		"im = Image.new('RGB', (2400, 1600), 'white')\nd = ImageDraw.Draw(im)\n"+
		"for i in range(0, 2400, 40):\n    d.line((i, 0, 2400 - i, 1600), fill=(i % 255, 90, 200), width=5)\n"+
		"im.save('photo.jpg', quality=90)\n")
	prep.Dir = ws
	if out, err := prep.CombinedOutput(); err != nil {
		b.Fatalf("the baseline needs Debian's python3-pil: %v: %s", err, out)
	}
	mcpToolBench(b, skill, ws, "[skills.thumbs]\nread = [\"workspace\"]\nwrite = [\"workspace\"]\nmemory = \"512MiB\"\n",
		"thumbs__thumb", nil, "thumb (320, 213)", func() *exec.Cmd {
			cmd := exec.Command(python, filepath.Join(skill, "scripts", "thumb.py"))
			cmd.Env = []string{"PATH=/usr/bin:/bin", "WORKSPACE=" + ws}
			return cmd
		})
}

// mcpToolBench serves skill over `skillrun mcp` (stdio, the official
// SDK's client) with the workspace and policy, calls tool once to warm it,
// then times calls against native runs in the same loop.
func mcpToolBench(b *testing.B, skill, ws, policyText, tool string, args []string, want string, native func() *exec.Cmd) {
	policy := filepath.Join(b.TempDir(), "policy.toml")
	if err := os.WriteFile(policy, []byte(policyText), 0o644); err != nil {
		b.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", skill, "--workspace", ws, "--policy", policy}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cs.Close(); clientOut.Close(); <-done }()
	arguments := map[string]any{}
	if args != nil {
		arguments["args"] = args
	}
	call := func() {
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: arguments})
		if err != nil {
			b.Fatal(err)
		}
		if got := textOf(res); res.IsError || !strings.Contains(got, want) {
			b.Fatalf("call: %q (error %v)", got, res.IsError)
		}
	}
	call() // compile the interpreter and make its snapshot

	var mcpTime, nativeTime time.Duration
	runs := 0
	for b.Loop() {
		start := time.Now()
		call()
		mcpTime += time.Since(start)
		b.StopTimer()
		cmd := native()
		start = time.Now()
		out, err := cmd.Output()
		nativeTime += time.Since(start)
		if err != nil || !strings.Contains(string(out), want) {
			b.Fatalf("native: %q, %v", out, err)
		}
		runs++
		b.StartTimer()
	}
	b.ReportMetric(float64(nativeTime.Nanoseconds())/float64(runs), "native-ns/op")
	b.ReportMetric(float64(mcpTime)/float64(nativeTime), "x-native")
}

// BenchmarkSessionPythonTool measures the same Python script tool called
// from an agent session (`skillrun session` with a scripted plan, in
// process): a session activates py-csv-report, calls its script once
// (which loads the interpreter and its snapshot from the disk cache) and
// then 8 times more; the same session reading a file of the skill
// instead of each of the 8 calls is the baseline of the session's own
// cost (set-up, activation, the first call, turns). ns/call is the difference divided by
// the calls; x-native is its ratio to the script run natively, measured
// in the same run.
func BenchmarkSessionPythonTool(b *testing.B) {
	const calls = 8
	python := nativePython(b)
	needPython(b)
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(examples, "workspace"))); err != nil {
		b.Fatal(err)
	}
	plan := "task = \"report\"\n[[turn]]\ntext = \"activate\"\n[[turn.call]]\ntool = \"skill_activate\"\ninput = { name = \"py-csv-report\" }\n" +
		"[[turn]]\ntext = \"first\"\n[[turn.call]]\ntool = \"py-csv-report__report\"\ninput = { args = [\"sales.csv\", \"--group\", \"region\"] }\n"
	// Two command lines in turn (the session stops a loop of identical
	// calls and results).
	for i := range calls {
		args := `"sales.csv"`
		if i%2 == 1 {
			args += `, "--sum", "units"`
		}
		plan += "[[turn]]\ntext = \"run\"\n[[turn.call]]\ntool = \"py-csv-report__report\"\ninput = { args = [" + args + "] }\n"
	}
	plan += "[[turn]]\nexpect = [\"total units\"]\ntext = \"done\"\n"
	dir := b.TempDir()
	planFile, emptyPlan := filepath.Join(dir, "plan.toml"), filepath.Join(dir, "empty.toml")
	if err := os.WriteFile(planFile, []byte(plan), 0o644); err != nil {
		b.Fatal(err)
	}
	// The baseline: the same turns, each reading a file of the skill.
	empty := strings.ReplaceAll(plan, `tool = "py-csv-report__report"`, `tool = "skill_read"`)
	empty = strings.ReplaceAll(empty, `input = { args = ["sales.csv"] }`, `input = { name = "py-csv-report", path = "SKILL.md" }`)
	empty = strings.ReplaceAll(empty, `input = { args = ["sales.csv", "--sum", "units"] }`, `input = { name = "py-csv-report", path = "skill.toml" }`)
	empty = strings.ReplaceAll(empty, `expect = ["total units"]`, `expect = ["[scripts.report]"]`)
	if err := os.WriteFile(emptyPlan, []byte(empty), 0o644); err != nil {
		b.Fatal(err)
	}
	session := func(plan string) time.Duration {
		var stderr strings.Builder
		start := time.Now()
		if code := run([]string{"session", "--plan", plan, "--skills", examples, "--workspace", ws, "-A"},
			strings.NewReader(""), io.Discard, &stderr); code != 0 {
			b.Fatalf("session exited %d: %s", code, stderr.String())
		}
		return time.Since(start)
	}
	session(planFile) // compile the interpreter, make its snapshot

	var sessTime, nativeTime time.Duration
	runs := 0
	for b.Loop() {
		sessTime += session(planFile)
		b.StopTimer()
		sessTime -= session(emptyPlan)
		cmd := exec.Command(python, filepath.Join(examples, "py-csv-report", "scripts", "report.py"), "sales.csv")
		cmd.Env = []string{"PATH=/usr/bin:/bin", "WORKSPACE=" + ws, "PYTHONPATH=" + filepath.Join(examples, "py-csv-report", "lib")}
		start := time.Now()
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "total revenue 746.30") {
			b.Fatalf("native: %q, %v", out, err)
		}
		nativeTime += time.Since(start)
		runs++
		b.StartTimer()
	}
	perCall := float64(sessTime.Nanoseconds()) / float64(runs*calls)
	b.ReportMetric(perCall, "ns/call")
	b.ReportMetric(float64(nativeTime.Nanoseconds())/float64(runs), "native-ns/op")
	b.ReportMetric(perCall/(float64(nativeTime.Nanoseconds())/float64(runs)), "x-native")
}
