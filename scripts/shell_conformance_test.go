package scripts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
)

// The Oils spec tests (../shared/conformance/oils, Apache-2.0) measure
// how bash-compatible the sandboxed shell is: TestShellConformance runs
// every case of the 49 files as `sh -c CODE` in the sandbox, judges it by
// its bash expectation (the format and rules are in that folder's
// README), and fails if the pass rate falls under the floor. The per-file
// rates go to the log and, with SHELL_CONFORMANCE_TSV=FILE, one row per
// case to FILE.

// conformanceFloor is the share of cases that must pass (measured:
// see RATIONALE.md, "The sandboxed shell").
const conformanceFloor = 0.94

// oilsDir is the conformance folder beside the repository.
func oilsDir(t *testing.T) string {
	dir, err := filepath.Abs("../../shared/conformance/oils")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "spec")); err != nil {
		if os.Getenv("REQUIRE_CORPUS") != "" {
			t.Fatalf("the Oils conformance cases are required (REQUIRE_CORPUS=1): %v", err)
		}
		t.Skipf("no Oils conformance cases beside the repository: %v", err)
	}
	return dir
}

// specCase is one case of a spec file with its bash expectation.
type specCase struct {
	file, name     string
	index          int
	code           string
	stdout, stderr *string
	status         int
}

var (
	specKV  = regexp.MustCompile(`^##\s+(?:(OK(?:-\d)?|BUG(?:-\d)?|N-I)\s+([\w+/.-]+)\s+)?([\w\-]+):\s*(.*)$`)
	specEnd = regexp.MustCompile(`^##\s+END`)
)

// parseSpec reads a spec file: metadata lines, then cases ("#### name",
// code, assertions). Lines whose first non-blank character is # are
// dropped; "## KEY:" in capitals opens a block up to "## END". A bash
// variant (OK, BUG or N-I naming bash) replaces the plain assertion of the
// keys it gives.
func parseSpec(path string) (legacyTmp bool, cases []specCase, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, nil, err
	}
	type kv struct {
		qual, shells, key, value string
		block                    bool // a STDOUT/STDERR block: its lines end in newlines
	}
	var (
		cur    *specCase
		plain  map[string]string
		bash   map[string]string
		code   strings.Builder
		inCode bool
		block  *kv
		buf    strings.Builder
	)
	finish := func() {
		if cur == nil {
			return
		}
		if _, ok := plain["code"]; !ok {
			plain["code"] = code.String()
		}
		cur.code = plain["code"]
		get := func(k string) (string, bool) {
			for _, m := range []map[string]string{bash, plain} {
				if m == nil {
					continue
				}
				if v, ok := m[k+"-json"]; ok {
					var s string
					if json.Unmarshal([]byte(v), &s) == nil {
						return s, true
					}
				}
				if v, ok := m[k]; ok {
					return v, true
				}
			}
			return "", false
		}
		if v, ok := get("stdout"); ok {
			cur.stdout = &v
		}
		if v, ok := get("stderr"); ok {
			cur.stderr = &v
		}
		if v, ok := get("status"); ok {
			cur.status, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		cases = append(cases, *cur)
		cur = nil
	}
	add := func(e kv) {
		if (e.key == "stdout" || e.key == "stderr") && !e.block {
			e.value += "\n"
		}
		if e.qual == "" {
			plain[e.key] = e.value
			return
		}
		for _, sh := range strings.Split(e.shells, "/") {
			if sh == "bash" || strings.HasPrefix(sh, "bash-") {
				if bash == nil {
					bash = map[string]string{}
				}
				bash[e.key] = e.value
			}
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if block != nil {
			if specEnd.MatchString(line) || strings.HasPrefix(line, "####") || specKV.MatchString(line) {
				block.value = buf.String()
				add(*block)
				block = nil
				if specEnd.MatchString(line) {
					continue
				}
			} else {
				buf.WriteString(line + "\n")
				continue
			}
		}
		if strings.HasPrefix(line, "####") {
			finish()
			header = false
			cur = &specCase{file: filepath.Base(path), name: strings.TrimSpace(line[4:]), index: len(cases)}
			plain, bash = map[string]string{}, nil
			code.Reset()
			inCode = true
			continue
		}
		if m := specKV.FindStringSubmatch(line); m != nil {
			e := kv{qual: m[1], shells: m[2], key: m[3], value: m[4]}
			if header {
				if e.key == "legacy_tmp_dir" {
					legacyTmp = true
				}
				continue
			}
			inCode = false
			if e.key == "STDOUT" || e.key == "STDERR" {
				e.key, e.block = strings.ToLower(e.key), true
				block = &e
				buf.Reset()
				continue
			}
			add(e)
			continue
		}
		if cur == nil || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
			continue
		}
		if inCode {
			code.WriteString(line + "\n")
		}
	}
	if block != nil {
		block.value = buf.String()
		add(*block)
	}
	finish()
	return legacyTmp, cases, sc.Err()
}

// TestParseSpec checks the parser against the baseline's list of cases:
// the same files, cases and names as the folder's own runner finds.
func TestParseSpec(t *testing.T) {
	dir := oilsDir(t)
	b, err := os.ReadFile(filepath.Join(dir, "bash-5.2-baseline.tsv"))
	require.NoError(t, err)
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(line, "\t")
		want = append(want, f[0]+"\t"+f[1]+"\t"+f[2])
	}
	files, err := filepath.Glob(filepath.Join(dir, "spec", "*.test.sh"))
	require.NoError(t, err)
	var got []string
	for _, f := range files {
		_, cases, err := parseSpec(f)
		require.NoError(t, err)
		for _, c := range cases {
			got = append(got, fmt.Sprintf("%s\t%d\t%s", c.file, c.index, c.name))
		}
	}
	require.Equal(t, want, got)
}

func TestShellConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance run takes minutes")
	}
	if raceEnabled {
		// 1,531 shell runs measure the guest, which the race detector
		// does not instrument; under it they take most of CI's budget.
		// `make test` runs this test again without -race.
		t.Skip("measured without -race: `make test` runs it in a second go test")
	}
	dir := oilsDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "spec", "*.test.sh"))
	require.NoError(t, err)
	files = onlySpecFiles(files, os.Getenv("SHELL_CONFORMANCE_ONLY"))
	require.NotEmpty(t, files)
	find := interpreters(t, interp.Shell)
	r := sourceRunner(t)

	type job struct {
		c      specCase
		legacy bool
	}
	var jobs []job
	for _, f := range files {
		legacy, cases, err := parseSpec(f)
		require.NoError(t, err, f)
		for _, c := range cases {
			jobs = append(jobs, job{c, legacy})
		}
	}
	type result struct {
		c   specCase
		why string
	}
	results := make([]result, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = result{jobs[i].c, runSpecCase(t, r, find, dir, jobs[i].c, jobs[i].legacy)}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()

	perFile := map[string][2]int{}
	passed := 0
	var tsv strings.Builder
	tsv.WriteString("file\tcase\tname\tresult\twhy\n")
	for _, res := range results {
		n := perFile[res.c.file]
		n[1]++
		verdict := "FAIL"
		if res.why == "" {
			n[0]++
			passed++
			verdict = "pass"
		}
		perFile[res.c.file] = n
		fmt.Fprintf(&tsv, "%s\t%d\t%s\t%s\t%s\n", res.c.file, res.c.index, res.c.name, verdict, strings.ReplaceAll(res.why, "\n", `\n`))
	}
	names := make([]string, 0, len(perFile))
	for f := range perFile {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		t.Logf("%-28s %3d/%3d", f, perFile[f][0], perFile[f][1])
	}
	rate := float64(passed) / float64(len(results))
	t.Logf("total: %d/%d cases match the bash expectation (%.1f%%)", passed, len(results), 100*rate)
	if out := os.Getenv("SHELL_CONFORMANCE_TSV"); out != "" {
		require.NoError(t, os.WriteFile(out, []byte(tsv.String()), 0o644))
	}
	if os.Getenv("SHELL_CONFORMANCE_ONLY") != "" {
		return // a subset says nothing about the whole set's floor
	}
	assert.GreaterOrEqual(t, rate, conformanceFloor, "conformance %.1f%% is under the floor %.0f%%", 100*rate, 100*conformanceFloor)
}

// onlySpecFiles keeps the spec files whose names start with one of the
// comma-separated prefixes in only ("array,assign" keeps array*.test.sh
// and assign*.test.sh), so work on one cluster reruns only its files.
// An empty only keeps them all.
func onlySpecFiles(files []string, only string) []string {
	if only == "" {
		return files
	}
	var kept []string
	for _, f := range files {
		for _, p := range strings.Split(only, ",") {
			if p != "" && strings.HasPrefix(filepath.Base(f), p) {
				kept = append(kept, f)
				break
			}
		}
	}
	return kept
}

// runSpecCase runs one case as Oils does, in -c mode: the working
// directory and $TMP a fresh folder, REPO_ROOT the folder holding spec/
// (here the workspace, with the helpers and test data copied in), the
// Python 3 helpers first on PATH. It returns "" for a pass, else why not.
func runSpecCase(t *testing.T, r *Runner, find InterpreterFunc, oils string, c specCase, legacyTmp bool) string {
	ws := t.TempDir()
	for _, sub := range []string{"spec/bin", "spec/testdata", "py3-helpers"} {
		if err := copyDir(filepath.Join(oils, filepath.FromSlash(sub)), filepath.Join(ws, filepath.FromSlash(sub))); err != nil {
			return "setup: " + err.Error()
		}
	}
	tmp := filepath.Join(ws, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "setup: " + err.Error()
	}
	if legacyTmp {
		_ = os.Mkdir(filepath.Join(tmp, "_tmp"), 0o755)
	}
	grant := ShellDeclares()
	grant.Timeout = capabilities.Duration(10 * time.Second)
	var stdout, stderr bytes.Buffer
	res, err := r.RunShell(context.Background(), &ShellRun{
		ScriptRun: ScriptRun{
			Services:     host.Services{Workspace: ws},
			Args:         []string{"-c", c.code},
			Stdin:        strings.NewReader(""),
			Stdout:       &stdout,
			Stderr:       &stderr,
			Granted:      grant,
			Interpreters: find,
		},
		Env: []string{"PATH=/workspace/py3-helpers:/workspace/spec/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8",
			"REPO_ROOT=/workspace", "TMP=/workspace/tmp", "PWD=/workspace/tmp", "SH=bash"},
	})
	if err != nil {
		return "run: " + err.Error()
	}
	var why []string
	if int(res.ExitCode) != c.status {
		why = append(why, fmt.Sprintf("status %d want %d", res.ExitCode, c.status))
	}
	if c.stdout != nil && stdout.String() != *c.stdout {
		why = append(why, fmt.Sprintf("stdout %q want %q", stdout.String(), *c.stdout))
	}
	if c.stderr != nil && stderr.String() != *c.stderr {
		why = append(why, fmt.Sprintf("stderr %q want %q", stderr.String(), *c.stderr))
	}
	return strings.Join(why, "; ")
}

// copyDir copies the regular files of a folder tree, keeping modes.
func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, fi.Mode().Perm())
	})
}
