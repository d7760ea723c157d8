//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/resident/handoff"
	"github.com/skillrun/skillrun/internal/resident/wire"
)

// An outcome is everything a command leaves that a user can see: its
// streams, its exit code, the workspace it wrote and its audit log.
type outcome struct {
	Code           int
	Stdout, Stderr string
	Files          map[string]string // path -> mode and content
	Audit          []map[string]any
}

// TestResidentLeavesNothing: two skills (a Python script started from
// the interpreter's snapshot, and a shell command line) run for two
// users' environments (variables, umask, working directory, time zone)
// through one resident, in turn and again, give each what the same
// command gives in a fresh process: the same output, exit code, files and
// audit. Nothing one command did reaches the next.
func TestResidentLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	requireInterpreters(t)
	bin, residentErr := startResident(t)
	examples, err := filepath.Abs("../../examples")
	require.NoError(t, err)

	users := []struct {
		name     string
		env      []string
		umask    int
		greeting string
	}{
		{"ada", []string{"GREETING=hello", "TZ=UTC", "LANG=C"}, 0o022, "hello"},
		{"bob", []string{"GREETING=bonjour", "TZ=Asia/Tokyo", "EXTRA=only-bob"}, 0o077, "bonjour"},
	}
	commands := []struct {
		name string
		args func(ws, audit, greeting string) []string
	}{
		{"python", func(ws, audit, _ string) []string {
			return []string{"run", filepath.Join(examples, "py-csv-report"), "--workspace", ".", "-A", "--audit", audit, "--", "sales.csv"}
		}},
		{"shell", func(ws, audit, greeting string) []string {
			return []string{"shell", "--workspace", ".", "-A", "--audit", audit, "-c",
				`echo "$1 from $(pwd)"; printf '%s\n' "${GREETING-unset}" > env.txt; echo made > made.txt; ls; exit 3`, "sh", greeting}
		}},
	}
	runAs := func(user int, cmd int, viaResident bool) outcome {
		t.Helper()
		u, c := users[user], commands[cmd]
		ws := filepath.Join(t.TempDir(), "ws")
		require.NoError(t, os.CopyFS(ws, os.DirFS(filepath.Join(examples, "workspace"))))
		audit := filepath.Join(t.TempDir(), "audit.jsonl")
		cmdline := exec.Command(bin, c.args(ws, audit, u.greeting)...)
		cmdline.Dir = ws
		cmdline.Env = append(os.Environ(), u.env...)
		if !viaResident {
			cmdline.Env = append(cmdline.Env, handoff.Env+"=0")
		}
		var stdout, stderr bytes.Buffer
		cmdline.Stdout, cmdline.Stderr = &stdout, &stderr
		old := syscall.Umask(u.umask) // inherited by the command
		err := cmdline.Run()
		syscall.Umask(old)
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return outcome{Code: code, Stdout: scrub(stdout.String(), ws), Stderr: scrub(stderr.String(), ws),
			Files: tree(t, ws), Audit: auditOf(t, audit, ws)}
	}

	// Once each way first, unrecorded: a first run may build or compile
	// an interpreter and say so on stderr.
	for c := range commands {
		runAs(0, c, false)
		runAs(0, c, true)
	}
	warm := strings.Count(residentErr.String(), "skillrun resident:")
	// Fresh processes: what each command must give.
	want := map[[2]int]outcome{}
	for u := range users {
		for c := range commands {
			want[[2]int{u, c}] = runAs(u, c, false)
		}
	}
	require.Equal(t, warm, strings.Count(residentErr.String(), "skillrun resident:"), "nothing fresh was handed to the resident")
	// Then through the resident, users and commands interleaved, twice.
	order := [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 0}, {1, 1}, {0, 1}, {1, 0}}
	for _, k := range order {
		got := runAs(k[0], k[1], true)
		assert.Equal(t, want[k], got, "%s's %s command through the resident", users[k[0]].name, commands[k[1]].name)
	}
	// Every one of them ran in the resident (none found it busy).
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(residentErr.String(), "skillrun resident:") < warm+len(order) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, warm+len(order), strings.Count(residentErr.String(), "skillrun resident:"), residentErr.String())
	// And the outcomes differ between users where they should (the
	// arguments, the umask in the files' modes; the host's variables
	// never reach the sandbox), or the test would not see a leftover.
	assert.NotEqual(t, want[[2]int{0, 1}].Stdout, want[[2]int{1, 1}].Stdout)
	assert.NotEqual(t, want[[2]int{0, 0}].Files, want[[2]int{1, 0}].Files)
	assert.NotEqual(t, want[[2]int{0, 1}].Files, want[[2]int{1, 1}].Files)
	assert.Equal(t, 3, want[[2]int{0, 1}].Code, "the shell's exit code")
}

// startResident starts `skillrun resident` in the foreground of the test
// (stopped with it) and waits until it listens. The skillrun command is
// this test binary under the name skillrun (TestMain runs it as the
// command), and what the resident says of the commands it runs is in
// stderr.
func startResident(tb testing.TB) (bin string, stderr *syncBuffer) {
	tb.Helper()
	exe, err := os.Executable()
	require.NoError(tb, err)
	bin = filepath.Join(tb.TempDir(), "skillrun")
	if err := os.Link(exe, bin); err != nil {
		data, err := os.ReadFile(exe)
		require.NoError(tb, err)
		require.NoError(tb, os.WriteFile(bin, data, 0o755))
	}
	stderr = &syncBuffer{}
	res := exec.Command(bin, "resident", "--idle", "5m")
	res.Stderr = stderr
	require.NoError(tb, res.Start())
	tb.Cleanup(func() {
		_ = res.Process.Signal(syscall.SIGTERM)
		_ = res.Wait()
	})
	cache, err := wire.CacheDir()
	require.NoError(tb, err)
	sock, err := wire.SocketPath(filepath.Join(cache, "skillrun", "resident"), wire.ExeIDOf(bin))
	require.NoError(tb, err)
	require.Eventually(tb, func() bool { _, err := os.Stat(sock); return err == nil }, 30*time.Second, 10*time.Millisecond,
		"the resident listens on %s", sock)
	return bin, stderr
}

// scrub replaces the workspace's host path, which differs between runs,
// and drops the progress lines of a slow compile (printed when loading an
// interpreter from the compile cache takes over 3 s, as it may on a busy
// machine): timing, not a leftover.
func scrub(s, ws string) string {
	var b strings.Builder
	for line := range strings.Lines(strings.ReplaceAll(s, ws, "$WS")) {
		if strings.HasPrefix(line, "skillrun: compiling the interpreter ") || strings.HasPrefix(line, "skillrun: compiled ") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// tree returns the files under dir with their modes and contents.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := fi.Mode().String()
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(data)
		}
		files[rel] = v
		return nil
	}))
	return files
}

// auditOf reads an audit log without its times and without how the
// interpreter started, the workspace scrubbed.
func auditOf(t *testing.T, file, ws string) []map[string]any {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var events []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(scrub(sc.Text(), ws)), &e))
		delete(e, "time")
		// How the interpreter started is not a leftover: a process's
		// first run of the shell starts fresh, the resident's from the
		// shell's snapshot (made on its second run).
		if r, ok := e["reason"].(string); ok {
			e["reason"] = strings.TrimSuffix(r, ", started from its snapshot")
		}
		events = append(events, e)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, events)
	return events
}
