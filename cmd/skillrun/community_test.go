package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillrun/skillrun/internal/fsguard"
	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/native"
	"github.com/skillrun/skillrun/scripts"
)

// communityDir holds real published skills with scripts, their inputs and
// their native output (../shared/community beside the repository; its
// README says how the expected output was made).
const communityDir = "../../../shared/community"

// compiledDir holds real published skills whose scripts import compiled
// Python packages (numpy, pandas, scipy, Pillow, matplotlib), laid out as
// communityDir (../shared/community-compiled; its README says how the
// expected output was made, with Debian's python3-* packages).
const compiledDir = "../../../shared/community-compiled"

// communityCase is one line of cases.tsv.
type communityCase struct {
	// dir is the case set the line is from (communityDir, compiledDir).
	dir                                        string
	id, skillDir, script, fixture, stdin, kind string
	// packages are the Python packages the script imports (compiledDir's
	// packages column; nil in communityDir).
	packages []string
	args     []string
}

// supportedKinds are the kinds of case skillrun runs: Python with the
// standard library, with pure-Python packages (after `skillrun deps`),
// JavaScript and shell. Every case of a supported kind must match.
var supportedKinds = map[string]bool{"stdlib": true, "js": true, "shell": true, "purepkg": true}

var communityWheelsDir = struct {
	once sync.Once
	dir  string
	err  error
}{}

// communityWheels builds, once, the wheels the purepkg cases need from
// Debian's pure-Python packages (.ci/run installs them).
func communityWheels(t *testing.T) string {
	communityWheelsDir.once.Do(func() {
		dir, err := os.MkdirTemp("", "skillrun-community-wheels-")
		if err != nil {
			communityWheelsDir.err = err
			return
		}
		communityWheelsDir.dir = dir
		_, communityWheelsDir.err = pydeps.DebianWheels(dir, "PyYAML", "pypdf", "openpyxl", "et-xmlfile", "defusedxml")
	})
	if communityWheelsDir.err != nil {
		t.Fatalf("wheels for the purepkg cases from Debian's python3-* packages: %v", communityWheelsDir.err)
	}
	return communityWheelsDir.dir
}

// TestCommunityCases runs every case of the community set under
// `skillrun run SKILL:FILE -A` and compares it with the native run: exit
// status, stdout byte for byte, and every file the native run created or
// changed in the workspace (created.tsv). Cases of a supported kind must
// all match; the share per kind is logged.
func TestCommunityCases(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	skipUnderRace(t)
	if _, err := os.Stat(filepath.Join(communityDir, "cases.tsv")); err != nil {
		if os.Getenv("REQUIRE_CORPUS") != "" {
			t.Fatalf("no community cases at %s, and REQUIRE_CORPUS is set: put ../shared beside the repository", communityDir)
		}
		t.Skipf("no community cases at %s (the shared folder beside the repository)", communityDir)
	}
	needPython(t)
	t.Cleanup(func() {
		if communityWheelsDir.dir != "" {
			_ = os.RemoveAll(communityWheelsDir.dir)
		}
	})
	cases := readCommunityCases(t, communityDir)
	var mu sync.Mutex
	passed, total := map[string]int{}, map[string]int{}
	t.Cleanup(func() {
		kinds := make([]string, 0, len(total))
		for k := range total {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var b strings.Builder
		for _, k := range kinds {
			fmt.Fprintf(&b, " %s %d/%d", k, passed[k], total[k])
		}
		t.Logf("community cases identical to the native run:%s", b.String())
	})
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			t.Parallel()
			problems := runCommunityCase(t, c)
			mu.Lock()
			total[c.kind]++
			if len(problems) == 0 {
				passed[c.kind]++
			}
			mu.Unlock()
			switch {
			case len(problems) == 0:
			case supportedKinds[c.kind]:
				t.Errorf("%s (%s): differs from the native run: %s", c.id, c.kind, strings.Join(problems, "; "))
			default:
				t.Logf("%s (%s, not supported yet): %s", c.id, c.kind, strings.Join(problems, "; "))
			}
		})
	}
}

// TestCommunityCasesNative: the community cases again under the native
// tier (--native): the real python3, node and bash, confined. Every case
// must match the native run's output, files and exit status exactly, as
// the scripts' authors ran them (the pure-Python packages are Debian's,
// read-only under /usr).
func TestCommunityCasesNative(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	nativeCases(t, communityDir, "community cases", false)
}

// TestCommunityCompiledNative: the compiled-package cases
// (../shared/community-compiled: pandas with scipy.stats, Pillow with
// pydicom, matplotlib) under the native tier, with the host's python3 and
// Debian's packages (.ci/run installs them), confined. Every case must
// match the native run's output, files and exit status exactly: the
// control of `NATIVE=1 check.sh` there, and the proof that the tier's
// read list (native.SystemPaths) is what these packages read.
func TestCommunityCompiledNative(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	nativeCases(t, compiledDir, "compiled-package cases", true)
}

// nativeCases runs the cases in dir under the native tier; each must
// match the native run exactly. needPackages: a case first checks that
// the host's python3 has its packages.
func nativeCases(t *testing.T, dir, what string, needPackages bool) {
	skipUnderRace(t)
	if _, err := os.Stat(filepath.Join(dir, "cases.tsv")); err != nil {
		if os.Getenv("REQUIRE_CORPUS") != "" {
			t.Fatalf("no %s at %s, and REQUIRE_CORPUS is set: put ../shared beside the repository", what, dir)
		}
		t.Skipf("no %s at %s (the shared folder beside the repository)", what, dir)
	}
	if err := native.Check(); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for _, c := range readCommunityCases(t, dir) {
		t.Run(c.id, func(t *testing.T) {
			t.Parallel()
			if needPackages {
				needHostPackages(t, c.packages)
			}
			if problems := runCommunityCase(t, c, "--native"); len(problems) > 0 {
				t.Errorf("%s (%s): differs from the native run: %s", c.id, c.kind, strings.Join(problems, "; "))
			}
		})
	}
}

// needHostPackages skips t when the python3 the native tier runs cannot
// import one of the Python packages named (distribution names, as in
// cases.tsv), or fails it when REQUIRE_TOOLCHAINS is set (CI, whose
// .ci/run installs Debian's python3-* packages).
func needHostPackages(t *testing.T, packages []string) {
	t.Helper()
	python, err := "", fmt.Errorf("no python3 in %s", strings.Join(scripts.DefaultNativePath, ":"))
	for _, dir := range scripts.DefaultNativePath { // as the native tier looks
		p := filepath.Join(dir, "python3")
		if fi, e := os.Stat(p); e == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			python, err = p, nil
			break
		}
	}
	if err == nil {
		imports := make([]string, 0, len(packages))
		for _, p := range packages {
			if p == "Pillow" {
				p = "PIL"
			}
			imports = append(imports, p)
		}
		if len(imports) > 0 {
			if out, e := exec.Command(python, "-c", "import "+strings.Join(imports, ", ")).CombinedOutput(); e != nil {
				err = fmt.Errorf("%s cannot import %s: %w: %s", python, strings.Join(packages, ", "), e, tail(string(out)))
			}
		}
	}
	if err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("Debian's python3-* packages the case imports are required (REQUIRE_TOOLCHAINS=1): %v", err)
		}
		t.Skip(err)
	}
}

// readCommunityCases reads the cases.tsv of the case set in dir.
func readCommunityCases(t testing.TB, dir string) []communityCase {
	f, err := os.Open(filepath.Join(dir, "cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var cases []communityCase
	for _, row := range rows[1:] { // a header line first
		if len(row) < 7 {
			t.Fatalf("cases.tsv: short line %q", row)
		}
		c := communityCase{dir: dir, id: row[0], skillDir: row[1], script: row[2], fixture: row[4], stdin: row[5], kind: row[6]}
		if len(row) > 7 && row[7] != "" {
			c.packages = strings.Split(row[7], ",")
		}
		if err := json.Unmarshal([]byte(row[3]), &c.args); err != nil {
			t.Fatalf("cases.tsv: %s: args: %v", c.id, err)
		}
		cases = append(cases, c)
	}
	return cases
}

// runCommunityCase runs c in a copy of its fixture and returns how it
// differs from the native run (nothing when identical).
func runCommunityCase(t *testing.T, c communityCase, flags ...string) []string {
	ws := t.TempDir()
	if c.fixture != "" {
		if err := os.CopyFS(ws, os.DirFS(filepath.Join(c.dir, c.fixture))); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	var stdin io.Reader = strings.NewReader("")
	if c.stdin != "" {
		b, err := os.ReadFile(filepath.Join(c.dir, c.stdin))
		if err != nil {
			t.Fatal(err)
		}
		stdin = bytes.NewReader(b)
	}
	var stdout, stderr bytes.Buffer
	if c.kind == "purepkg" && len(flags) == 0 {
		// The packages, as a user gets them: skillrun deps, here from
		// wheels built from Debian's pure-Python packages (no network).
		wheels := communityWheels(t)
		if code := run([]string{"deps", filepath.Join(c.dir, c.skillDir), "--find-links", wheels, "--index-url", "none"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			return []string{fmt.Sprintf("skillrun deps: exit %d: %s", code, tail(stderr.String()))}
		}
		stdout.Reset()
		stderr.Reset()
	}
	grant := "-A"
	if len(flags) > 0 {
		// The native tier never gets write access to a folder holding a
		// module (here a skill the script validates): the operator grants
		// what such a run can have, as the refusal says.
		if mod, err := fsguard.FindModuleFolder(ws, fsguard.MaxSearch); err != nil || mod != "" {
			grant = "--allow-read"
		}
	}
	args := append(append(append([]string{"run", filepath.Join(c.dir, c.skillDir) + ":" + c.script, "--workspace", ws, grant}, flags...), "--"), c.args...)
	code := run(args, stdin, &stdout, &stderr)
	if len(flags) > 0 {
		// The native runs were made with the workspace at /workspace, where
		// the sandbox shows it; the native tier shows its host path.
		out := bytes.ReplaceAll(stdout.Bytes(), []byte(ws), []byte("/workspace"))
		stdout.Reset()
		stdout.Write(out)
	}

	expected := filepath.Join(c.dir, "expected", c.id)
	var problems []string
	wantOut, err := os.ReadFile(filepath.Join(expected, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), wantOut) {
		problems = append(problems, fmt.Sprintf("stdout %q, want %q", tail(stdout.String()), tail(string(wantOut))))
	}
	wantExit, err := os.ReadFile(filepath.Join(expected, "exit"))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := strconv.Atoi(strings.TrimSpace(string(wantExit))); code != want {
		problems = append(problems, fmt.Sprintf("exit %d, want %d (stderr %q)", code, want, tail(stderr.String())))
	}
	created, err := os.ReadFile(filepath.Join(expected, "created.tsv"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(created), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 || f[0] == "type" || strings.HasPrefix(line, "#") {
			continue
		}
		p := filepath.Join(ws, filepath.FromSlash(f[1]))
		switch f[0] {
		case "f":
			b, err := os.ReadFile(p)
			sum := sha256.Sum256(b)
			// "*": the file's bytes change from run to run natively; only
			// that it is there is compared.
			if err != nil || f[2] != "*" && hex.EncodeToString(sum[:]) != f[2] {
				problems = append(problems, "file "+f[1]+" differs or is missing")
			}
		case "d":
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				problems = append(problems, "no folder "+f[1])
			}
		case "x":
			if _, err := os.Lstat(p); err == nil {
				problems = append(problems, f[1]+" not deleted")
			}
		}
	}
	return problems
}

// tail is the end of s, for messages.
func tail(s string) string {
	if len(s) > 300 {
		return "..." + s[len(s)-300:]
	}
	return s
}

// BenchmarkCommunityCases runs the supported community cases (standard
// library Python, JavaScript) under skillrun and natively
// (/usr/bin/python3.11, /usr/bin/node, as the expected output was made)
// in the same run, and reports the total time of each and their ratio.
// skillrun's time includes starting the sandbox per case, as `skillrun
// run` does, with the interpreters' compiled code in the disk cache.
//
//	go test -run '^$' -bench CommunityCases ./cmd/skillrun
func BenchmarkCommunityCases(b *testing.B) {
	if _, err := os.Stat(filepath.Join(communityDir, "cases.tsv")); err != nil {
		b.Skipf("no community cases at %s", communityDir)
	}
	natives := map[string]string{"stdlib": "/usr/bin/python3.11", "js": "/usr/bin/node"}
	for _, bin := range natives {
		if _, err := os.Stat(bin); err != nil {
			b.Skipf("the native baseline %s is not installed", bin)
		}
	}
	var cases []communityCase
	for _, c := range readCommunityCases(b, communityDir) {
		if supportedKinds[c.kind] {
			cases = append(cases, c)
		}
	}
	var sandboxed, native time.Duration
	for b.Loop() {
		for _, c := range cases {
			ws := b.TempDir()
			if c.fixture != "" {
				_ = os.CopyFS(ws, os.DirFS(filepath.Join(communityDir, c.fixture)))
			}
			start := time.Now()
			var out bytes.Buffer
			run(append([]string{"run", filepath.Join(communityDir, c.skillDir) + ":" + c.script, "--workspace", ws, "-A", "--"}, c.args...),
				communityStdin(b, c), &out, io.Discard)
			sandboxed += time.Since(start)

			ws2 := b.TempDir()
			if c.fixture != "" {
				_ = os.CopyFS(ws2, os.DirFS(filepath.Join(communityDir, c.fixture)))
			}
			script, err := filepath.Abs(filepath.Join(communityDir, c.skillDir, c.script))
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(natives[c.kind], append([]string{script}, c.args...)...)
			cmd.Dir, cmd.Stdin = ws2, communityStdin(b, c)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + b.TempDir(), "LANG=C.UTF-8", "TZ=UTC", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1"}
			start = time.Now()
			_ = cmd.Run() // some cases exit 1 on purpose
			native += time.Since(start)
		}
	}
	n := float64(b.N)
	b.ReportMetric(sandboxed.Seconds()/n, "s-skillrun/op")
	b.ReportMetric(native.Seconds()/n, "s-native/op")
	b.ReportMetric(sandboxed.Seconds()/native.Seconds(), "skillrun/native")
	b.ReportMetric(float64(len(cases)), "cases")
}

// communityStdin is what case c feeds its script.
func communityStdin(tb testing.TB, c communityCase) io.Reader {
	if c.stdin == "" {
		return strings.NewReader("")
	}
	data, err := os.ReadFile(filepath.Join(c.dir, c.stdin))
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.NewReader(data)
}

// needPython skips t when CPython for WASI is not installed in the default
// interpreters folder, or fails it when REQUIRE_TOOLCHAINS is set (CI,
// which runs `make interpreters` first).
func needPython(t testing.TB) {
	t.Helper()
	dir, err := interp.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := interp.Find(dir, interp.Python); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("CPython for WASI is required (REQUIRE_TOOLCHAINS=1): %v; run `make python`", err)
		}
		t.Skipf("CPython for WASI is not installed: %v", err)
	}
}
