package skilltest

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillrun/skillrun/internal/safefile"
)

// maxSnapshotFiles bounds the entries a workspace snapshot walks: a run
// that creates more fails its case instead of slowing the runner down.
const maxSnapshotFiles = 100_000

// startWorkspace makes a fresh temporary workspace for the case and
// snapshots it. done removes it. When it cannot, it says why on res and
// ok is false.
func (c *Case) startWorkspace(res *Result) (ws string, before map[string]entry, done func(), ok bool) {
	ws, err := os.MkdirTemp("", "skillrun-test-")
	if err != nil {
		res.fail("%v", err)
		return "", nil, nil, false
	}
	done = func() { _ = os.RemoveAll(ws) }
	if err := c.prepare(ws); err != nil {
		done()
		res.fail("%s: %v", c.File, err)
		return "", nil, nil, false
	}
	if before, err = snapshot(ws); err != nil {
		done()
		res.fail("%s: the starting workspace: %v", c.File, err)
		return "", nil, nil, false
	}
	return ws, before, done, true
}

// prepare makes the case's starting workspace in the empty folder ws: a
// copy of its fixture folder (inside the skill, through os.Root so no
// symlink leads out of it), then its inline files.
func (c *Case) prepare(ws string) error {
	if c.Workspace != "" {
		rel, err := relPath(c.Workspace)
		if err != nil {
			return err
		}
		skillRoot, err := os.OpenRoot(filepath.Dir(c.Skill.Location))
		if err != nil {
			return err
		}
		defer skillRoot.Close()
		fixture, err := skillRoot.OpenRoot(rel)
		if err != nil {
			return fmt.Errorf("workspace %q: %w", c.Workspace, safefile.Cause(err))
		}
		defer fixture.Close()
		if err := os.CopyFS(ws, fixture.FS()); err != nil {
			return fmt.Errorf("workspace %q: copying it: %w", c.Workspace, err)
		}
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, name := range sortedKeys(c.Files) {
		rel, err := relPath(name)
		if err != nil {
			return err
		}
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("workspace file %q: %w", name, err)
			}
		}
		if err := root.WriteFile(rel, []byte(c.Files[name]), 0o644); err != nil {
			return fmt.Errorf("workspace file %q: %w", name, err)
		}
	}
	return nil
}

// An entry is one path of a workspace snapshot.
type entry struct {
	kind byte   // 'f' file, 'd' folder, 'l' symlink
	sum  string // a file's SHA-256, a symlink's target
	mode fs.FileMode
}

// snapshot records every path under ws (slash-separated, relative).
func snapshot(ws string) (map[string]entry, error) {
	out := map[string]entry{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == ws {
			return nil
		}
		if len(out) == maxSnapshotFiles {
			return fmt.Errorf("the workspace holds more than %d files", maxSnapshotFiles)
		}
		rel, _ := filepath.Rel(ws, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = entry{kind: 'l', sum: target}
		case d.IsDir():
			out[rel] = entry{kind: 'd', mode: info.Mode().Perm()}
		case info.Mode().IsRegular():
			sum, err := safefile.SHA256(p)
			if err != nil {
				return err
			}
			out[rel] = entry{kind: 'f', sum: sum, mode: info.Mode().Perm()}
		default:
			out[rel] = entry{kind: '?', mode: info.Mode()}
		}
		return nil
	})
	return out, err
}

// A change is a path the run created, changed or deleted.
type change struct {
	path string
	what string // "created", "changed" or "deleted"
}

// changes compares two snapshots, sorted by path. Folders that only
// changed because their contents did are not changes.
func changes(before, after map[string]entry) []change {
	var out []change
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, change{p, "created"})
		case a.kind != b.kind || a.sum != b.sum || a.mode != b.mode:
			out = append(out, change{p, "changed"})
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, change{p, "deleted"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// ignored reports whether p matches one of the patterns, or lies in a
// folder that does.
func ignored(p string, patterns []string) bool {
	for _, pat := range patterns {
		for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
			if ok, _ := path.Match(pat, q); ok {
				return true
			}
		}
	}
	return false
}

// within reports whether p is name or inside the folder name.
func within(p, name string) bool {
	return p == name || strings.HasPrefix(p, name+"/")
}
