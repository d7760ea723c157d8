package skillpkg

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/skills"
)

// gitEnv makes git in tests (ours and the code's) ignore the machine's
// configuration and commit as a fixed author.
func gitEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatal("git is required (REQUIRE_TOOLCHAINS is set)")
		}
		t.Skip("git not installed")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
	} {
		t.Setenv(k, v)
	}
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles writes files (slash path -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill, for tests.\n---\nDo the thing.\n"
}

// newRepo makes a git repository holding files, committed; it returns
// the folder and the commit.
func newRepo(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q")
	return dir, commitFiles(t, dir, files)
}

func commitFiles(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	writeFiles(t, dir, files)
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "change")
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// project is a project folder with its skills folder and lock.
type project struct {
	dir, skills, lock string
	out               *bytes.Buffer
}

func newProject(t *testing.T) *project {
	dir := t.TempDir()
	return &project{dir: dir, skills: filepath.Join(dir, ".agents", "skills"), lock: filepath.Join(dir, LockFile), out: &bytes.Buffer{}}
}

func (p *project) manager(t *testing.T, force bool) *Manager {
	t.Helper()
	m, err := New(&Options{SkillsDir: p.skills, LockFile: p.lock, Force: force, Out: p.out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (p *project) add(t *testing.T, source string, names ...string) error {
	t.Helper()
	src, err := ParseSource(source)
	if err != nil {
		t.Fatal(err)
	}
	return p.manager(t, false).Add(context.Background(), src, names)
}

func (p *project) readLock(t *testing.T) *Lock {
	t.Helper()
	l, err := ReadLock(p.lock)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// installed lists the visible entries of the skills folder.
func (p *project) installed(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(p.skills)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func digestOf(t *testing.T, dir string) string {
	t.Helper()
	s, err := skills.LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAddRootSkill(t *testing.T) {
	gitEnv(t)
	repo, commit := newRepo(t, map[string]string{"SKILL.md": skillMD("root-skill"), "scripts/run.sh": "curl https://example.com\n"})
	p := newProject(t)
	if err := p.add(t, repo); err != nil {
		t.Fatal(err)
	}
	e, ok := p.readLock(t).Skills["root-skill"]
	if !ok {
		t.Fatalf("lock has no root-skill: %+v", p.readLock(t))
	}
	want := Entry{Source: repo, SourceType: TypeLocal, URL: repo, Commit: commit, SkillPath: ".",
		ComputedHash: digestOf(t, filepath.Join(p.skills, "root-skill"))}
	if e != want {
		t.Errorf("entry mismatch:\n got %+v\nwant %+v", e, want)
	}
	if !strings.Contains(p.out.String(), "appears to need network: curl (scripts/run.sh:1)") {
		t.Errorf("output does not show the network need:\n%s", p.out)
	}
	data, _ := os.ReadFile(p.lock)
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.Contains(data, []byte("\n  \"skills\": {")) {
		t.Errorf("lock not indented with a trailing newline:\n%s", data)
	}
}

func TestAddSelect(t *testing.T) {
	gitEnv(t)
	repo, _ := newRepo(t, map[string]string{
		"skills/a/SKILL.md": skillMD("a"), "skills/b/SKILL.md": skillMD("b"),
		"node_modules/x/SKILL.md": skillMD("x"), "README.md": "hi\n",
	})
	p := newProject(t)
	err := p.add(t, repo, "zz")
	if err == nil || !strings.Contains(err.Error(), `has no skill "zz"; it has: a, b`) {
		t.Fatalf("unknown --skill: got %v", err)
	}
	if got := p.installed(t); len(got) != 0 {
		t.Fatalf("unknown --skill installed %v", got)
	}
	if err := p.add(t, repo, "b"); err != nil {
		t.Fatal(err)
	}
	if got := p.installed(t); len(got) != 1 || got[0] != "b" {
		t.Fatalf("installed %v, want [b]", got)
	}
	if e := p.readLock(t).Skills["b"]; e.SkillPath != "skills/b" {
		t.Errorf("skillPath %q, want skills/b", e.SkillPath)
	}
}

func TestAddMarketplace(t *testing.T) {
	gitEnv(t)
	repo, _ := newRepo(t, map[string]string{
		".claude-plugin/marketplace.json": `{
  "name": "m", "owner": {"name": "o"},
  "metadata": {"pluginRoot": "./plugins"},
  "plugins": [
    {"name": "p1", "source": "./plugins/p1"},
    {"name": "p2", "source": "p2"},
    {"name": "far", "source": {"source": "github", "repo": "acme/far"}}
  ]
}`,
		"plugins/p1/skills/one/SKILL.md":         skillMD("one"),
		"plugins/p2/.claude-plugin/plugin.json":  `{"name": "p2", "skills": ["./extra"]}`,
		"plugins/p2/extra/two/SKILL.md":          skillMD("two"),
		"plugins/unlisted/skills/three/SKILL.md": skillMD("three"),
	})
	p := newProject(t)
	if err := p.add(t, repo); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.installed(t), ","); got != "one,two" {
		t.Errorf("installed %s, want one,two (only listed plugins)", got)
	}
	if !strings.Contains(p.out.String(), `skipped plugin "far"`) {
		t.Errorf("remote plugin not reported as skipped:\n%s", p.out)
	}
	if e := p.readLock(t).Skills["two"]; e.SkillPath != "plugins/p2/extra/two" {
		t.Errorf("skillPath %q", e.SkillPath)
	}
}

func TestInstallRestoresAndFrozen(t *testing.T) {
	gitEnv(t)
	repo, _ := newRepo(t, map[string]string{"skills/a/SKILL.md": skillMD("a"), "skills/a/notes.txt": "v1\n"})
	p := newProject(t)
	if err := p.add(t, repo); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := p.manager(t, false)
	lockBefore, _ := os.ReadFile(p.lock)
	dir := filepath.Join(p.skills, "a")

	// A changed file: frozen fails and changes nothing; verify sees it.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("tampered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Install(ctx, true); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("frozen install of a changed skill: got %v, want ErrNotLocked", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "tampered\n" {
		t.Errorf("frozen install modified the skill")
	}
	st, _, err := m.Verify()
	if err != nil || len(st) != 1 || st[0].State != "differs" {
		t.Fatalf("verify: %v %v", st, err)
	}

	// A deleted skill: install restores it from the locked commit.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := m.Install(ctx, true); !errors.Is(err, ErrNotLocked) || !strings.Contains(p.out.String(), "a: missing") {
		t.Fatalf("frozen install of a missing skill: %v\n%s", err, p.out)
	}
	if err := m.Install(ctx, false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "v1\n" {
		t.Errorf("restored notes.txt = %q", data)
	}
	if err := m.Install(ctx, true); err != nil {
		t.Errorf("frozen install after restore: %v", err)
	}
	if lockAfter, _ := os.ReadFile(p.lock); !bytes.Equal(lockBefore, lockAfter) {
		t.Errorf("install changed the lock")
	}
}

func TestUpdate(t *testing.T) {
	gitEnv(t)
	repo, first := newRepo(t, map[string]string{"skills/a/SKILL.md": skillMD("a")})
	p := newProject(t)
	if err := p.add(t, repo); err != nil {
		t.Fatal(err)
	}
	m := p.manager(t, false)
	ctx := context.Background()
	if err := m.Update(ctx, nil); err != nil || !strings.Contains(p.out.String(), "a: up to date") {
		t.Fatalf("update with no new commit: %v\n%s", err, p.out)
	}
	old := p.readLock(t).Skills["a"]
	second := commitFiles(t, repo, map[string]string{
		"skills/a/skill.toml":       "[capabilities]\nenv = [\"LANG\"]\n",
		"skills/a/scripts/fetch.py": "import urllib.request\n",
	})
	p.out.Reset()
	if err := m.Update(ctx, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	cur := p.readLock(t).Skills["a"]
	if cur.Commit != second || old.Commit != first || cur.ComputedHash == old.ComputedHash {
		t.Fatalf("lock after update: %+v (before %+v)", cur, old)
	}
	out := p.out.String()
	for _, want := range []string{"+ declares: env=LANG", "+ appears to need network: urllib", `digest = "` + cur.ComputedHash + `"`} {
		if !strings.Contains(out, want) {
			t.Errorf("update output lacks %q:\n%s", want, out)
		}
	}
	if err := m.Update(ctx, []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no skill "nope"`) {
		t.Errorf("update of an unknown skill: %v", err)
	}

	// A policy pinning the old digest no longer grants the updated skill.
	dir := filepath.Join(p.skills, "a")
	pol, err := capabilities.ParsePolicy([]byte(`
[skills.a]
path = "`+dir+`"
digest = "`+old.ComputedHash+`"
env = ["LANG"]
`), filepath.Join(p.dir, "policy.toml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := skills.LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pol.Grant(s.Ref())
	if err == nil || len(got.Env) != 0 {
		t.Errorf("policy pinning the old digest still grants %+v (err %v)", got, err)
	}
}

func TestPins(t *testing.T) {
	gitEnv(t)
	repo, first := newRepo(t, map[string]string{"SKILL.md": skillMD("pinned"), "data.txt": "one\n"})
	gitIn(t, repo, "tag", "v1")
	second := commitFiles(t, repo, map[string]string{"data.txt": "two\n"})

	// @commit pins: update stays.
	byCommit := newProject(t)
	if err := byCommit.add(t, repo+"@"+first); err != nil {
		t.Fatal(err)
	}
	if e := byCommit.readLock(t).Skills["pinned"]; e.Ref != first || e.Commit != first {
		t.Fatalf("@commit entry %+v", e)
	}
	if err := byCommit.manager(t, false).Update(context.Background(), nil); err != nil || !strings.Contains(byCommit.out.String(), "up to date") {
		t.Fatalf("update of a commit pin: %v\n%s", err, byCommit.out)
	}

	// @tag: the tag moves; install keeps the locked commit, update moves.
	p := newProject(t)
	if err := p.add(t, repo+"@v1"); err != nil {
		t.Fatal(err)
	}
	locked := p.readLock(t).Skills["pinned"]
	if locked.Ref != "v1" || locked.Commit != first {
		t.Fatalf("@tag entry %+v", locked)
	}
	gitIn(t, repo, "tag", "-f", "v1", second)
	dir := filepath.Join(p.skills, "pinned")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	m := p.manager(t, false)
	if err := m.Install(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "data.txt")); string(data) != "one\n" {
		t.Errorf("install after the tag moved got %q, want the locked content", data)
	}
	if err := m.Update(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if e := p.readLock(t).Skills["pinned"]; e.Commit != second {
		t.Errorf("update did not follow the tag: %+v", e)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "data.txt")); string(data) != "two\n" {
		t.Errorf("after update data.txt = %q", data)
	}
}

func TestPlainFolder(t *testing.T) {
	src := filepath.Join(t.TempDir(), "plain")
	writeFiles(t, src, map[string]string{"SKILL.md": skillMD("plain")})
	p := newProject(t)
	if err := p.add(t, src); err != nil {
		t.Fatal(err)
	}
	if e := p.readLock(t).Skills["plain"]; e.Commit != "" || e.URL != src {
		t.Fatalf("plain folder entry %+v", e)
	}
	writeFiles(t, src, map[string]string{"more.txt": "x\n"})
	if err := p.manager(t, false).Update(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.skills, "plain", "more.txt")); err != nil {
		t.Errorf("update did not re-copy the folder: %v", err)
	}
}

// TestAddRefuses: bad input fails with a clear error and leaves no
// skill folder, no temporary folder and no lock behind.
func TestAddRefuses(t *testing.T) {
	gitEnv(t)
	tests := []struct {
		name    string
		files   map[string]string
		setup   func(t *testing.T, repo string, p *project)
		source  func(repo string) string
		wantErr string
	}{
		{name: "symlink out", files: map[string]string{"skills/a/SKILL.md": skillMD("a")},
			setup: func(t *testing.T, repo string, p *project) {
				if err := os.Symlink("../../../etc-secret", filepath.Join(repo, "skills", "a", "key")); err != nil {
					t.Fatal(err)
				}
				gitIn(t, repo, "add", "-A")
				gitIn(t, repo, "commit", "-q", "-m", "link")
			}, wantErr: "symlink"},
		{name: "oversize file", files: map[string]string{"skills/a/SKILL.md": skillMD("a"), "skills/a/big.bin": strings.Repeat("x", 5000)},
			setup: func(t *testing.T, repo string, p *project) {
				old := limits.fileBytes
				limits.fileBytes = 4096
				t.Cleanup(func() { limits.fileBytes = old })
			}, wantErr: "big.bin: 5000 bytes, over the 4096-byte bound"},
		{name: "collision", files: map[string]string{"skills/a/SKILL.md": skillMD("a")},
			setup: func(t *testing.T, repo string, p *project) {
				writeFiles(t, p.skills, map[string]string{"a/SKILL.md": skillMD("a")})
			}, wantErr: "already exists and is not in the lock; remove it first, or add --force"},
		{name: "look-alike", files: map[string]string{"skills/deploy/SKILL.md": skillMD("deploy")},
			setup: func(t *testing.T, repo string, p *project) {
				writeFiles(t, p.skills, map[string]string{"Deploy/SKILL.md": skillMD("Deploy")})
			}, wantErr: `skill "deploy" looks like the installed "Deploy"`},
		{name: "look-alike in one repo", files: map[string]string{"x/SKILL.md": skillMD("dup"), "y/dup/SKILL.md": skillMD("dup")},
			wantErr: `two skills claim the name "dup"`},
		{name: "invalid skill", files: map[string]string{"skills/a/SKILL.md": "no frontmatter\n"},
			wantErr: "skill skills/a is invalid"},
		{name: "missing repository", files: map[string]string{"SKILL.md": skillMD("a")},
			source:  func(repo string) string { return "file://" + repo + "-missing" },
			wantErr: "fetching file://"},
		{name: "missing ref", files: map[string]string{"SKILL.md": skillMD("a")},
			source:  func(repo string) string { return repo + "@no-such-tag" },
			wantErr: `no branch, tag or commit "no-such-tag"`},
		{name: "no skills", files: map[string]string{"README.md": "x"}, wantErr: "no skills found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, _ := newRepo(t, tt.files)
			p := newProject(t)
			if tt.setup != nil {
				tt.setup(t, repo, p)
			}
			before := p.installed(t)
			source := repo
			if tt.source != nil {
				source = tt.source(repo)
			}
			err := p.add(t, source)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
			}
			if got := p.installed(t); strings.Join(got, ",") != strings.Join(before, ",") {
				t.Errorf("skills folder changed: %v -> %v", before, got)
			}
			if _, err := os.Stat(p.lock); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a lock was written")
			}
		})
	}
}

func TestAddForceReplaces(t *testing.T) {
	gitEnv(t)
	repo, _ := newRepo(t, map[string]string{"skills/a/SKILL.md": skillMD("a")})
	p := newProject(t)
	writeFiles(t, p.skills, map[string]string{"a/SKILL.md": skillMD("a"), "a/old.txt": "old"})
	src, _ := ParseSource(repo)
	if err := p.manager(t, true).Add(context.Background(), src, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.skills, "a", "old.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--force kept the old folder's files")
	}
	if got := p.installed(t); len(got) != 1 {
		t.Errorf("leftovers in the skills folder: %v", got)
	}
}

func TestSpecialFileRefused(t *testing.T) {
	src := filepath.Join(t.TempDir(), "fifo-skill")
	writeFiles(t, src, map[string]string{"SKILL.md": skillMD("fifo-skill")})
	if err := mkfifo(filepath.Join(src, "pipe")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	p := newProject(t)
	if err := p.add(t, src); err == nil || !strings.Contains(err.Error(), "special file") {
		t.Fatalf("got %v, want a special-file error", err)
	}
	if got := p.installed(t); len(got) != 0 {
		t.Errorf("installed %v", got)
	}
}

// TestUpdateRefusesLinkOut: a new commit that turns the locked skill
// folder into a link to the user's files is refused, and nothing of
// those files is copied.
func TestUpdateRefusesLinkOut(t *testing.T) {
	gitEnv(t)
	repo, _ := newRepo(t, map[string]string{"skills/a/SKILL.md": skillMD("a")})
	p := newProject(t)
	if err := p.add(t, repo); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(t.TempDir(), "a")
	writeFiles(t, private, map[string]string{"SKILL.md": skillMD("a"), "id_rsa": "secret"})
	gitIn(t, repo, "rm", "-q", "-r", "skills/a")
	if err := os.MkdirAll(filepath.Join(repo, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, filepath.Join(repo, "skills", "a")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "link")
	lockBefore, _ := os.ReadFile(p.lock)
	err := p.manager(t, false).Update(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "leads out of the repository") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(p.skills, "a", "id_rsa")); err == nil {
		t.Error("the private file was copied")
	}
	if lockAfter, _ := os.ReadFile(p.lock); !bytes.Equal(lockBefore, lockAfter) {
		t.Error("the lock changed")
	}
	if got := p.installed(t); strings.Join(got, ",") != "a" {
		t.Errorf("skills folder: %v", got)
	}
}

// TestAddSubfolder: a folder inside a work tree is cloned from the
// tree's top; only the skills under it are found, with their full path.
func TestAddSubfolder(t *testing.T) {
	gitEnv(t)
	repo, commit := newRepo(t, map[string]string{"skills/a/SKILL.md": skillMD("a"), "other/b/SKILL.md": skillMD("b")})
	p := newProject(t)
	if err := p.add(t, filepath.Join(repo, "skills")); err != nil {
		t.Fatal(err)
	}
	if got := p.installed(t); strings.Join(got, ",") != "a" {
		t.Errorf("installed %v, want [a]", got)
	}
	if e := p.readLock(t).Skills["a"]; e.URL != repo || e.SkillPath != "skills/a" || e.Commit != commit {
		t.Errorf("entry %+v", e)
	}
}
