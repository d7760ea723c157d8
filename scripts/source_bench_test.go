package scripts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/skills"
)

// Benchmarks of source scripts, each against a baseline measured in the
// same run (DESIGN.md "Performance"):
//
//	BenchmarkSourceStartup    print(1+1) / console.log(1+1) through
//	                          RunScript (warm: interpreter compiled), and
//	                          x-native = its time over `python3 -c` /
//	                          `node -e` as a subprocess; Python from the
//	                          interpreter's snapshot (python/snapshot) and
//	                          from _start (python/fresh)
//	BenchmarkSourceWorkload   the CSV report example on the example
//	                          workspace, x-native over python3 / node
//	                          running the same script file; Python from
//	                          the snapshot and fresh, as above
//	BenchmarkSourceSubprocess a Python script starting python3 and a
//	                          shell command with subprocess (each another
//	                          run in the sandbox), and node's child_process
//	                          the same; x-native over the same script run
//	                          natively (real processes)
//	BenchmarkInterpreterCompile  compiling python.wasm and js.wasm with an
//	                          empty disk cache (miss) and a warm one (hit):
//	                          hit/miss
//
// Run with: go test -run '^$' -bench Source -bench Interpreter ./scripts

// nativeBinaries are the baselines' interpreters, by absolute path: a
// python3 or node found through PATH may be a version manager's shim
// (pyenv, nvm, asdf), a script that costs about 80 ms before the real
// interpreter starts, which would make the sandbox look several times
// faster than it is. python3.11 is the series the Wasm build is of.
var nativeBinaries = map[string]string{interp.Python: "/usr/bin/python3.11", interp.JS: "/usr/bin/node"}

// nativeLogged keeps nativeFor to one line per language in the output.
var nativeLogged sync.Map

// nativeFor returns the native interpreter binary for language and says
// which one in the benchmark output, or skips (fails under
// REQUIRE_TOOLCHAINS) when it is not installed.
func nativeFor(b *testing.B, language string) string {
	b.Helper()
	name := nativeBinaries[language]
	fi, err := os.Stat(name)
	if err == nil && (fi.IsDir() || fi.Mode().Perm()&0o111 == 0) {
		err = fmt.Errorf("%s is not an executable file", name)
	}
	if err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			b.Fatalf("%s is required for the baseline (REQUIRE_TOOLCHAINS is set): %v; install Debian's python3.11 and nodejs", name, err)
		}
		b.Skipf("no %s for the baseline: %v", name, err)
	}
	if _, done := nativeLogged.LoadOrStore(language, true); !done {
		real, _ := filepath.EvalSymlinks(name)
		b.Logf("native baseline for %s: %s (%s)", language, name, real)
	}
	return name
}

// benchSource times one RunScript per iteration and, with the timer
// stopped, one native run of the same work, and reports the ratio.
func benchSource(b *testing.B, r *Runner, s *skills.Skill, script, lang string, mkRun func() *ScriptRun, native func() *exec.Cmd, want string) {
	find := interpreters(b, lang)
	ctx := context.Background()
	_, declared, err := declaredOf(s, script)
	require.NoError(b, err)
	granted, err := capabilitiesGrantAll(declared)
	require.NoError(b, err)
	run := func() {
		sr := mkRun()
		var out, errOut bytes.Buffer
		sr.Stdout, sr.Stderr, sr.Granted, sr.Interpreters = &out, &errOut, granted, find
		res, err := r.RunScript(ctx, s, script, sr)
		require.NoError(b, err, "%s: stderr %q", script, errOut.String())
		require.Zero(b, res.ExitCode, "%s: exit code; stderr %q", script, errOut.String())
		require.Contains(b, out.String(), want, "%s: stdout", script)
	}
	run() // compile (or load from the disk cache) outside the timing
	var wasmTime, nativeTime time.Duration
	runs := 0
	for b.Loop() {
		start := time.Now()
		run()
		wasmTime += time.Since(start)
		b.StopTimer()
		cmd := native()
		start = time.Now()
		out, err := cmd.Output()
		nativeTime += time.Since(start)
		require.NoError(b, err, "native %s", cmd)
		require.Contains(b, string(out), want, "native %s", cmd)
		runs++
		b.StartTimer()
	}
	b.ReportMetric(float64(nativeTime.Nanoseconds())/float64(runs), "native-ns/op")
	b.ReportMetric(float64(wasmTime)/float64(nativeTime), "x-native")
}

// eachStart runs bench with the Runner of each way a language's runs
// start: Python from its snapshot and fresh, others as they do.
func eachStart(b *testing.B, lang string, bench func(b *testing.B, r *Runner)) {
	if lang != interp.Python {
		bench(b, sourceRunner(b))
		return
	}
	b.Run("snapshot", func(b *testing.B) { bench(b, sourceRunner(b)) })
	b.Run("fresh", func(b *testing.B) { bench(b, freshRunner(b)) })
}

func BenchmarkSourceStartup(b *testing.B) {
	for _, c := range []struct{ lang, file, src, flag string }{
		{interp.Python, "scripts/x.py", "print(1+1)", "-c"},
		{interp.JS, "scripts/x.js", "console.log(1+1)", "-e"},
	} {
		b.Run(c.lang, func(b *testing.B) {
			native := nativeFor(b, c.lang)
			s := benchSkill(b, c.file, c.src)
			eachStart(b, c.lang, func(b *testing.B, r *Runner) {
				benchSource(b, r, s, "main", c.lang, func() *ScriptRun { return &ScriptRun{} },
					func() *exec.Cmd { return exec.Command(native, c.flag, c.src) }, "2\n")
			})
		})
	}
}

func BenchmarkSourceSubprocess(b *testing.B) {
	for _, c := range []struct{ lang, file, src string }{
		{interp.Python, "scripts/x.py", "import subprocess, sys\n" +
			"a = subprocess.run([sys.executable, '-c', 'print(20 + 1)'], capture_output=True, text=True).stdout.strip()\n" +
			"b = subprocess.run('echo 2 | tr 2 1', shell=True, capture_output=True, text=True).stdout.strip()\n" +
			"print(a + b)"},
		{interp.JS, "scripts/x.js", "const cp = require('child_process');\n" +
			"const a = cp.execFileSync('node', ['-e', 'console.log(20 + 1)']).toString().trim();\n" +
			"const b = cp.execSync('echo 2 | tr 2 1').toString().trim();\n" +
			"console.log(a + b);"},
	} {
		b.Run(c.lang, func(b *testing.B) {
			native := nativeFor(b, c.lang)
			interpreters(b, interp.Shell)
			s := benchSkill(b, c.file, c.src)
			script := filepath.Join(filepath.Dir(s.Location), filepath.FromSlash(c.file))
			benchSource(b, sourceRunner(b), s, "main", c.lang, func() *ScriptRun { return &ScriptRun{} },
				func() *exec.Cmd {
					cmd := exec.Command(native, script)
					cmd.Env = []string{"PATH=/usr/bin:/bin"}
					return cmd
				}, "211\n")
		})
	}
}

func BenchmarkSourceWorkload(b *testing.B) {
	for _, c := range []struct{ lang, skill, file string }{
		{interp.Python, "py-csv-report", "scripts/report.py"},
		{interp.JS, "js-csv-report", "scripts/report.js"},
	} {
		b.Run(c.lang, func(b *testing.B) {
			native := nativeFor(b, c.lang)
			s, err := skills.LoadDir(filepath.Join("..", "examples", c.skill), nil)
			require.NoError(b, err)
			ws := b.TempDir()
			require.NoError(b, os.CopyFS(ws, os.DirFS(filepath.Join("..", "examples", "workspace"))))
			skillDir := filepath.Dir(s.Location)
			eachStart(b, c.lang, func(b *testing.B, r *Runner) {
				benchSource(b, r, s, "report", c.lang,
					func() *ScriptRun {
						return &ScriptRun{Services: host.Services{Workspace: ws}, Args: []string{"sales.csv"}}
					},
					func() *exec.Cmd {
						cmd := exec.Command(native, filepath.Join(skillDir, c.file), "sales.csv")
						cmd.Env = append(os.Environ(), "WORKSPACE="+ws, "PYTHONPATH="+filepath.Join(skillDir, "lib"))
						return cmd
					}, "total revenue 746.30")
			})
		})
	}
}

func BenchmarkInterpreterCompile(b *testing.B) {
	for _, lang := range []string{interp.Python, interp.JS} {
		b.Run(lang, func(b *testing.B) {
			in, err := interpreters(b, lang)(context.Background(), lang)
			require.NoError(b, err)
			wasm, err := os.ReadFile(in.Module)
			require.NoError(b, err)
			ctx := context.Background()
			compile := func(dir string) time.Duration {
				start := time.Now()
				r, err := sandbox.New(ctx, &sandbox.Options{CacheDir: dir})
				require.NoError(b, err)
				_, err = r.Compile(ctx, wasm)
				require.NoError(b, err)
				d := time.Since(start)
				_ = r.Close(ctx)
				return d
			}
			var miss, hit time.Duration
			runs := 0
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				miss += compile(dir)
				b.StartTimer()
				hit += compile(dir)
				runs++
			}
			b.ReportMetric(float64(miss.Nanoseconds())/float64(runs), "miss-ns/op")
			b.ReportMetric(float64(hit)/float64(miss), "hit/miss")
		})
	}
}

func benchSkill(b *testing.B, file, src string) *skills.Skill {
	return benchSkillCaps(b, "", file, src)
}

// benchSkillCaps is benchSkill with a [capabilities] table's lines.
func benchSkillCaps(b *testing.B, caps, file, src string) *skills.Skill {
	dir := filepath.Join(b.TempDir(), "bench-src")
	for name, body := range map[string]string{
		"SKILL.md":   "---\nname: bench-src\ndescription: d\n---\n",
		"skill.toml": "version = 1\n[capabilities]\n" + caps + "\n[scripts.main]\nsource = \"" + file + "\"\n",
		file:         src + "\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(body), 0o644))
	}
	s, err := skills.LoadDir(dir, nil)
	require.NoError(b, err)
	return s
}

// capabilitiesGrantAll grants everything declared (-A).
func capabilitiesGrantAll(declared capabilities.Set) (capabilities.Set, error) {
	return capabilities.GrantFromFlags(declared, true, nil)
}
