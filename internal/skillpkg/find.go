package skillpkg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// Bounds on finding skills in a checkout.
const (
	maxFindDepth    = 5       // folders below the search root
	maxFindEntries  = 100_000 // entries walked
	maxManifestJSON = 1 << 20 // marketplace.json, plugin.json
	maxPlugins      = 1000
)

// findSkipDirs hold no skills of their own.
var findSkipDirs = map[string]bool{".git": true, "node_modules": true}

// A found is the result of searching a checkout for skills.
type found struct {
	// Paths are the skill folders, slash-separated from the checkout's
	// root ("." for a root SKILL.md), sorted.
	Paths []string
	// Skipped says what was listed but not searched, and why (a plugin
	// whose source is another repository).
	Skipped []string
}

// findSkills looks for skills under sub ("" for the root) of the
// checkout at dir:
//
//   - a SKILL.md there makes it the one skill;
//   - a Claude Code marketplace (.claude-plugin/marketplace.json): the
//     skills of each plugin it lists by a relative path;
//   - a Claude Code plugin (.claude-plugin/plugin.json): its skills;
//   - otherwise every folder holding a SKILL.md, up to 5 levels down.
//
// Every read goes through an [os.Root] on dir, so no link or ".." in a
// manifest leads outside the checkout.
func findSkills(dir, sub string) (found, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return found{}, err
	}
	defer root.Close()
	fsys := root.FS()
	base := "."
	if sub != "" {
		base = sub
		if fi, err := fs.Stat(fsys, base); err != nil || !fi.IsDir() {
			return found{}, fmt.Errorf("folder %s is not in the repository's commit (uncommitted?)", sub)
		}
	}
	if hasSkillFile(fsys, base) {
		return found{Paths: []string{base}}, nil
	}
	f := &finder{fsys: fsys, seen: map[string]bool{}}
	mp := path.Join(base, ".claude-plugin", "marketplace.json")
	pj := path.Join(base, ".claude-plugin", "plugin.json")
	switch {
	case exists(fsys, mp):
		err = f.marketplace(base, mp)
	case exists(fsys, pj):
		err = f.plugin(base, nil)
	default:
		err = f.walk(base)
	}
	if err != nil {
		return found{}, err
	}
	slices.Sort(f.out.Paths)
	return f.out, nil
}

type finder struct {
	fsys    fs.FS
	out     found
	seen    map[string]bool
	entries int
}

func (f *finder) add(p string) {
	if !f.seen[p] {
		f.seen[p] = true
		f.out.Paths = append(f.out.Paths, p)
	}
}

// walk adds the skill folders under base, not looking inside a skill.
func (f *finder) walk(base string) error {
	depth0 := strings.Count(base, "/")
	if base == "." {
		depth0 = -1
	}
	return fs.WalkDir(f.fsys, base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == base {
				return err
			}
			return nil // an unreadable folder holds nothing we can install
		}
		if f.entries++; f.entries > maxFindEntries {
			return fmt.Errorf("more than %d files and folders: not a skills repository?", maxFindEntries)
		}
		if !d.IsDir() {
			return nil
		}
		if p != base && (findSkipDirs[d.Name()] || strings.Count(p, "/")-depth0 > maxFindDepth) {
			return fs.SkipDir
		}
		if hasSkillFile(f.fsys, p) {
			f.add(p)
			return fs.SkipDir
		}
		return nil
	})
}

// marketplaceFile is the part of .claude-plugin/marketplace.json read
// here. A plugin's source is a relative path string ("./plugins/x") or
// an object naming another place (github, url, ...), which is skipped.
type marketplaceFile struct {
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []struct {
		Name   string          `json:"name"`
		Source json.RawMessage `json:"source"`
		Skills json.RawMessage `json:"skills"`
	} `json:"plugins"`
}

func (f *finder) marketplace(base, file string) error {
	var m marketplaceFile
	if err := readJSON(f.fsys, file, &m); err != nil {
		return err
	}
	if len(m.Plugins) > maxPlugins {
		return fmt.Errorf("%s: more than %d plugins", file, maxPlugins)
	}
	for _, p := range m.Plugins {
		var src string
		if err := json.Unmarshal(p.Source, &src); err != nil {
			f.out.Skipped = append(f.out.Skipped, fmt.Sprintf("plugin %q: its source %s is not in this repository; add that source on its own", p.Name, compact(p.Source)))
			continue
		}
		dir, err := relPath(base, src, m.Metadata.PluginRoot)
		if err != nil {
			return fmt.Errorf("%s: plugin %q: %w", file, p.Name, err)
		}
		extra, err := skillPaths(p.Skills)
		if err != nil {
			return fmt.Errorf("%s: plugin %q: skills: %w", file, p.Name, err)
		}
		if err := f.plugin(dir, extra); err != nil {
			return err
		}
	}
	return nil
}

// plugin adds the skills of the plugin at dir: its skills/ folder and
// the paths its plugin.json (and the marketplace entry, extra) name.
func (f *finder) plugin(dir string, extra []string) error {
	paths := append([]string{"skills"}, extra...)
	pj := path.Join(dir, ".claude-plugin", "plugin.json")
	if exists(f.fsys, pj) {
		var m struct {
			Skills json.RawMessage `json:"skills"`
		}
		if err := readJSON(f.fsys, pj, &m); err != nil {
			return err
		}
		more, err := skillPaths(m.Skills)
		if err != nil {
			return fmt.Errorf("%s: skills: %w", pj, err)
		}
		paths = append(paths, more...)
	}
	for _, p := range paths {
		full, err := relPath(dir, p, "")
		if err != nil {
			return fmt.Errorf("plugin %s: skills path %q: %w", dir, p, err)
		}
		if fi, err := fs.Stat(f.fsys, full); err != nil || !fi.IsDir() {
			continue
		}
		if hasSkillFile(f.fsys, full) {
			f.add(full)
			continue
		}
		if err := f.walk(full); err != nil {
			return err
		}
	}
	return nil
}

// skillPaths reads a "skills" field: one path or a list of paths.
func skillPaths(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("want a path or a list of paths")
	}
	if len(list) > maxPlugins {
		return nil, fmt.Errorf("more than %d paths", maxPlugins)
	}
	return list, nil
}

// relPath joins a manifest's relative path p ("./x", or "x" under
// pluginRoot) to base, refusing absolute paths and ones that climb out
// of the repository.
func relPath(base, p, pluginRoot string) (string, error) {
	if p == "" || path.IsAbs(p) || strings.HasPrefix(p, `\`) || len(p) >= 2 && p[1] == ':' {
		return "", fmt.Errorf("path %q is not relative to the repository", p)
	}
	if !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") && pluginRoot != "" {
		p = path.Join(pluginRoot, p)
	}
	full := path.Join(base, p)
	if !fs.ValidPath(full) {
		return "", fmt.Errorf("path %q leads out of the repository", p)
	}
	return full, nil
}

func readJSON(fsys fs.FS, name string, v any) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestJSON+1))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxManifestJSON {
		return fmt.Errorf("%s: larger than %d bytes", name, maxManifestJSON)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", name, jsonError(data, err))
	}
	return nil
}

// compact shows a JSON value on one short line.
func compact(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func hasSkillFile(fsys fs.FS, dir string) bool {
	for _, n := range []string{"SKILL.md", "skill.md"} {
		if fi, err := fs.Stat(fsys, path.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}
