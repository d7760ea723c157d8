package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"golang.org/x/tools/txtar"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/internal/scaffold"
)

// newLangs are the languages `skillrun new` takes, as scaffold lists them.
var newLangs = scaffold.Langs()

// runSkillrun runs skillrun in-process and returns its exit code and output.
func runSkillrun(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// newSkill scaffolds a skill called "count-<lang>" into a fresh folder
// and returns its path.
func newSkill(t *testing.T, lang string) string {
	t.Helper()
	parent := t.TempDir()
	code, stdout, stderr := runSkillrun("new", "count-"+lang, "--lang", lang, "--dir", parent)
	if code != 0 {
		t.Fatalf("skillrun new --lang %s: exit %d\nstderr: %s", lang, code, stderr)
	}
	dir := filepath.Join(parent, "count-"+lang)
	if !strings.HasPrefix(stdout, "created "+dir+" ("+lang+"):\n") || !strings.Contains(stdout, "  skillrun test ") {
		t.Errorf("skillrun new printed:\n%s\nwant the folder created and the next commands", stdout)
	}
	return dir
}

// newNeedLang skips t when what runs a script in lang is not installed:
// an interpreter for WebAssembly (python; js and shell are built from
// this tree when missing) or a compiler with its WASI library (go, c,
// rust). With REQUIRE_TOOLCHAINS=1 (CI) a missing one fails t instead.
func newNeedLang(t *testing.T, lang string) {
	t.Helper()
	missing := ""
	switch lang {
	case "python":
		needPython(t)
	case "js", "shell":
		dir, err := interp.DefaultDir()
		if err != nil {
			t.Fatal(err)
		}
		name := map[string]string{"js": interp.JS, "shell": interp.Shell}[lang]
		if _, err := interp.Ensure(context.Background(), dir, name, nil); err != nil {
			t.Fatal(err)
		}
	case "go":
		if _, err := exec.LookPath("go"); err != nil {
			missing = "go"
		}
	case "c":
		for _, tool := range []string{"clang", "wasm-ld"} {
			if _, err := exec.LookPath(tool); err != nil {
				missing = tool
			}
		}
		libc := false
		for _, s := range []string{"/usr", "/usr/share/wasi-sysroot", "/opt/wasi-sdk/share/wasi-sysroot"} {
			if _, err := os.Stat(filepath.Join(s, "lib", "wasm32-wasi", "libc.a")); err == nil {
				libc = true
			}
		}
		if !libc {
			missing = "wasi-libc"
		}
	case "rust":
		if !rustWASI() {
			missing = "a rustc with the wasm32-wasip1 standard library"
		}
	}
	if missing == "" {
		return
	}
	if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
		t.Fatalf("%s is required for %s (REQUIRE_TOOLCHAINS=1)", missing, lang)
	}
	t.Skipf("%s is not installed (set REQUIRE_TOOLCHAINS=1 to fail instead)", missing)
}

// newCase is the test case a new skill comes with, tests/count.txtar.
type newCase struct {
	Script string
	Args   []string
	Grant  struct{ Read, Write []string }
	// Workspace holds the files the workspace starts with, by path.
	Workspace map[string][]byte
	Stdout    string
}

func readNewCase(t *testing.T, dir string) newCase {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join(dir, "tests", "count.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var c newCase
	if _, err := toml.Decode(string(a.Comment), &c); err != nil {
		t.Fatalf("tests/count.txtar: %v", err)
	}
	c.Workspace = map[string][]byte{}
	for _, f := range a.Files {
		switch {
		case f.Name == "stdout":
			c.Stdout = string(f.Data)
		case strings.HasPrefix(f.Name, "workspace/"):
			c.Workspace[strings.TrimPrefix(f.Name, "workspace/")] = f.Data
		default:
			t.Fatalf("tests/count.txtar: unexpected section %q", f.Name)
		}
	}
	if c.Script == "" || len(c.Args) == 0 || c.Stdout == "" || len(c.Workspace) == 0 {
		t.Fatalf("tests/count.txtar: want a script, args, workspace files and stdout; got %+v", c)
	}
	return c
}

// workspace writes the case's workspace into a fresh folder.
func (c newCase) workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for name, data := range c.Workspace {
		if err := os.WriteFile(filepath.Join(ws, filepath.FromSlash(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// grantFlags are the case's grant as `skillrun run` flags.
func (c newCase) grantFlags() []string {
	var flags []string
	for _, v := range c.Grant.Read {
		flags = append(flags, "--allow-read="+v)
	}
	for _, v := range c.Grant.Write {
		flags = append(flags, "--allow-write="+v)
	}
	return flags
}

// TestNewValidates: every language's new skill passes `skillrun
// validate` with no warning, holds the files --json lists, and its Go
// source is gofmt-clean.
func TestNewValidates(t *testing.T) {
	for _, lang := range newLangs {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			parent := t.TempDir()
			code, stdout, stderr := runSkillrun("new", "count-"+lang, "--lang", lang, "--dir", parent, "--json")
			if code != 0 {
				t.Fatalf("skillrun new: exit %d: %s", code, stderr)
			}
			var res newResult
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("--json: %v\n%s", err, stdout)
			}
			dir := filepath.Join(parent, "count-"+lang)
			if res.Dir != dir || res.Lang != lang {
				t.Errorf("--json: dir %q lang %q, want %q and %q", res.Dir, res.Lang, dir, lang)
			}
			var onDisk []string
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					onDisk = append(onDisk, filepath.ToSlash(rel))
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			assert.Equal(t, onDisk, res.Files, "--json files (-on disk +listed):\n")
			for _, want := range []string{"SKILL.md", "tests/count.txtar"} {
				if !slices.Contains(res.Files, want) {
					t.Errorf("no %s in %v", want, res.Files)
				}
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 1 {
				t.Errorf("%s holds %d entries, want only the new skill (no temporary folder left)", parent, len(entries))
			}

			code, stdout, stderr = runSkillrun("validate", dir)
			if code != 0 || stderr != "" {
				t.Errorf("skillrun validate: exit %d, stderr %q (want 0 and no warning)", code, stderr)
			}
			if want := "valid: " + dir + " (count-" + lang + ")\n"; stdout != want {
				t.Errorf("skillrun validate printed %q, want %q", stdout, want)
			}
			if lang == "go" {
				src, err := os.ReadFile(filepath.Join(dir, "src", "main.go"))
				if err != nil {
					t.Fatal(err)
				}
				if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
					t.Errorf("src/main.go is not gofmt-clean (%v)", err)
				}
			}
		})
	}
}

// TestNewRuns: every language's new skill runs (built first when
// compiled) in the sandbox with its test case's workspace and grant and
// prints what the case expects; where it is cheap, the same source run
// natively prints the same, and the skill's own case passes under
// `skillrun test`.
func TestNewRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	for _, lang := range newLangs {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			newNeedLang(t, lang)
			dir := newSkill(t, lang)
			c := readNewCase(t, dir)
			l, _ := scaffold.LookupLang(lang)
			if c.Script != l.Script {
				t.Errorf("the case runs %q, want %q", c.Script, l.Script)
			}
			if l.Build {
				code, _, stderr := runSkillrun("build", dir)
				if code != 0 {
					t.Fatalf("skillrun build: exit %d\n%s", code, stderr)
				}
			}
			ws := c.workspace(t)
			args := append([]string{"run", dir + ":" + c.Script, "--workspace", ws}, c.grantFlags()...)
			code, stdout, stderr := runSkillrun(append(append(args, "--"), c.Args...)...)
			if code != 0 {
				t.Fatalf("skillrun run: exit %d\nstderr: %s", code, stderr)
			}
			assert.Equal(t, c.Stdout, stdout, "skillrun run output")

			// -A grants all the script declares, which is at least as much.
			args = []string{"run", dir + ":" + c.Script, "--workspace", ws, "-A", "--"}
			if _, stdout, _ := runSkillrun(append(args, c.Args...)...); stdout != c.Stdout {
				t.Errorf("with -A: got %q, want %q", stdout, c.Stdout)
			}

			// A file it cannot read: reported, the others counted, exit 1.
			code, stdout, stderr = runSkillrun(append(args, "notes.txt", "missing.txt")...)
			if code != 1 || !strings.HasPrefix(stdout, "2 3 14 notes.txt\n") || !strings.Contains(stderr, "missing.txt") {
				t.Errorf("with a missing file: exit %d, stdout %q, stderr %q; want 1, notes.txt counted and missing.txt named", code, stdout, stderr)
			}

			// Its own case passes under `skillrun test`.
			code, stdout, stderr = runSkillrun("test", dir)
			if code != 0 {
				t.Fatalf("skillrun test: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !slices.ContainsFunc(strings.Split(stdout, "\n"), func(l string) bool { return strings.HasPrefix(l, "ok   count-"+lang+"/count ") }) {
				t.Errorf("skillrun test printed no ok line for count-%s/count:\n%s", lang, stdout)
			}

			if native := newNative(t, dir, lang); native != nil {
				cmd := exec.Command(native[0], append(native[1:], c.Args...)...)
				cmd.Dir = ws
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("native %v: %v", native, err)
				}
				assert.Equal(t, c.Stdout, string(out), "native run output")
			}
		})
	}
}

// newNative returns the command that runs the new skill's script in dir
// natively, building it if needed, or nil when the tool for that is not
// installed (a native comparison is a bonus, never required).
func newNative(t *testing.T, dir, lang string) []string {
	t.Helper()
	look := func(name string) string {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Logf("no native comparison: %v", err)
			return ""
		}
		return p
	}
	bin := filepath.Join(t.TempDir(), "count")
	build := func(tool string, args ...string) []string {
		if tool = look(tool); tool == "" {
			return nil
		}
		cmd := exec.Command(tool, args...)
		cmd.Dir = filepath.Join(dir, "src")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("native build %s %v: %v\n%s", tool, args, err, out)
		}
		return []string{bin}
	}
	switch lang {
	case "python":
		if _, err := os.Stat("/usr/bin/python3.11"); err != nil {
			t.Logf("no native comparison: %v", err)
			return nil
		}
		return []string{"/usr/bin/python3.11", filepath.Join(dir, "scripts", "count.py")}
	case "js":
		if node := look("node"); node != "" {
			return []string{node, filepath.Join(dir, "scripts", "count.js")}
		}
	case "shell":
		if sh := look("sh"); sh != "" {
			return []string{sh, filepath.Join(dir, "scripts", "count.sh")}
		}
	case "go":
		return build("go", "build", "-o", bin, ".")
	case "c":
		return build("cc", "-O2", "-o", bin, "count.c")
	case "rust":
		return build("rustc", "--edition", "2021", "-O", "-o", bin, "main.rs")
	}
	return nil
}

// TestNewBadInput: a bad NAME or --lang is a usage error (2) that says
// what is allowed, and nothing is written.
func TestNewBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"uppercase and underscore", []string{"Bad_Name"}, `must be lowercase`},
		{"leading hyphen", []string{"--", "-x"}, `cannot start or end with a hyphen`},
		{"leading hyphen read as a flag", []string{"-x"}, `unknown shorthand flag`},
		{"trailing hyphen", []string{"x-"}, `cannot start or end with a hyphen`},
		{"double hyphen", []string{"a--b"}, `cannot contain consecutive hyphens`},
		{"65 characters", []string{strings.Repeat("a", 65)}, `exceeds 64 character limit`},
		{"empty", []string{""}, `must not be empty`},
		{"a path", []string{"a/b"}, `invalid characters '/'`},
		{"not ASCII", []string{"données"}, `outside ASCII`},
		{"unknown lang", []string{"count", "--lang", "cobol"}, `unknown --lang "cobol": use one of python, js, shell, go, c, rust`},
		{"lang is case-sensitive", []string{"count", "--lang", "Go"}, `use one of`},
		{"no name", nil, `accepts 1 arg(s), received 0`},
		{"two names", []string{"a", "b"}, `accepts 1 arg(s), received 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			args := append([]string{"new", "--dir", parent}, tc.args...)
			code, stdout, stderr := runSkillrun(args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("skillrun %q: exit %d, stderr %q; want %d and %q", args, code, stderr, exitUsage, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Contains(tc.want, "skill name") || strings.Contains(stderr, "not a valid skill name") {
				if !strings.Contains(stderr, "lowercase ASCII letters, digits and hyphens") {
					t.Errorf("stderr %q does not say what a name may be", stderr)
				}
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 0 {
				t.Errorf("%s holds %d entries after a refusal, want none", parent, len(entries))
			}
		})
	}
}

// TestNewExisting: a skill folder, file or symlink already at PARENT/NAME
// is left as it was, and the refusal (exit 1) names the path.
func TestNewExisting(t *testing.T) {
	for _, kind := range []string{"folder", "empty folder", "file", "dangling symlink"} {
		t.Run(kind, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "count")
			var err error
			switch kind {
			case "folder":
				err = os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
				if err == nil {
					err = os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("mine\n"), 0o644)
				}
			case "empty folder":
				err = os.Mkdir(dir, 0o755)
			case "file":
				err = os.WriteFile(dir, []byte("mine\n"), 0o644)
			case "dangling symlink":
				err = os.Symlink(filepath.Join(parent, "nowhere"), dir)
			}
			if err != nil {
				t.Fatal(err)
			}
			before := newSnapshot(t, parent)
			code, stdout, stderr := runSkillrun("new", "count", "--dir", parent)
			if code != exitInvalid || !strings.Contains(stderr, dir+": already exists") {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitInvalid, dir+": already exists")
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			assert.Equal(t, before, newSnapshot(t, parent), "%s changed (-before +after):\n", parent)
		})
	}
}

// newSnapshot lists what is under root: each path with its mode and, for
// a file, its content, or for a symlink its target.
func newSnapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			v += " -> " + target
		}
		snap[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestNewDefaults: python is the default language, and the skill goes in
// the current folder when --dir is not given; a --dir that does not exist
// yet is made.
func TestNewDefaults(t *testing.T) {
	parent := t.TempDir()
	t.Chdir(parent)
	code, stdout, stderr := runSkillrun("new", "counter")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "created counter (python):\n") {
		t.Errorf("stdout %q, want the skill created in the current folder", stdout)
	}
	if _, err := os.Stat(filepath.Join(parent, "counter", "scripts", "count.py")); err != nil {
		t.Error(err)
	}
	if fi, err := os.Stat(filepath.Join(parent, "counter", "scripts", "count.py")); err == nil && fi.Mode()&0o100 == 0 {
		t.Errorf("scripts/count.py has mode %v, want it executable", fi.Mode())
	}

	deeper := filepath.Join(parent, "skills", "mine")
	if code, _, stderr := runSkillrun("new", "other", "--dir", deeper); code != 0 {
		t.Fatalf("--dir %s: exit %d: %s", deeper, code, stderr)
	}
	if _, err := os.Stat(filepath.Join(deeper, "other", "SKILL.md")); err != nil {
		t.Error(err)
	}
}
