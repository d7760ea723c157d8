package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/skillrun/skillrun/internal/fsguard"
)

// maxGlobFiles is the most paths workspace_glob returns, as Claude Code's
// Glob; it visits at most maxListEntries entries to find them.
const maxGlobFiles = 100

// workspaceGlobSchema is workspace_glob's input schema: the arguments of
// Claude Code's Glob tool, under the same names.
const workspaceGlobSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob pattern matched against file paths: \"**\" matches any number of folders; \"*\", \"?\" and \"[...]\" match within one path element, such as \"models/**/*.sql\"."},
    "path": {"type": "string", "description": "Folder relative to the workspace to search in; the whole workspace if omitted."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

// A globPattern is a glob pattern split into slash-separated elements.
type globPattern []string

// parseGlob checks pattern and splits it into the folder its leading
// literal elements name (joined to the search folder, so that the grant
// checked is the narrowest) and the pattern of the rest, which holds at
// least the last element.
func parseGlob(pattern string) (dir string, rest globPattern, err error) {
	switch {
	case pattern == "":
		return "", nil, errors.New(`pattern is empty; give one such as "**/*.sql"`)
	case len(pattern) > maxQueryLen:
		return "", nil, fmt.Errorf("pattern is %d bytes, over the %d-byte limit", len(pattern), maxQueryLen)
	case strings.HasPrefix(pattern, "/"):
		return "", nil, fmt.Errorf("pattern %q is absolute; give a pattern relative to the workspace (or to path), such as \"**/*.sql\"", pattern)
	}
	var elems globPattern
	for _, e := range strings.Split(pattern, "/") {
		if e == "" || e == "." {
			continue
		}
		e = shellClasses(e)
		if _, err := path.Match(e, ""); err != nil {
			return "", nil, fmt.Errorf("invalid pattern %q: %w", pattern, err)
		}
		elems = append(elems, e)
	}
	if len(elems) == 0 {
		return "", nil, fmt.Errorf("pattern %q names no file", pattern)
	}
	lit := 0
	for lit < len(elems)-1 && !strings.ContainsAny(elems[lit], `*?[\`) {
		lit++
	}
	return path.Join(elems[:lit]...), elems[lit:], nil
}

// match reports whether the path elements name match p. "**" matches any
// number of elements, none included; any other element matches one, by
// [path.Match]. It is the classic wildcard match with "**" as the star,
// which backtracks to the last star only, so it takes time linear in
// len(p)·len(name) at worst.
func (p globPattern) match(name []string) bool {
	i, j := 0, 0
	star, starJ := -1, 0
	for j < len(name) {
		switch {
		case i < len(p) && p[i] == "**":
			star, starJ = i, j
			i++
		case i < len(p) && matchElem(p[i], name[j]):
			i++
			j++
		case star >= 0:
			starJ++
			i, j = star+1, starJ
		default:
			return false
		}
	}
	for i < len(p) && p[i] == "**" {
		i++
	}
	return i == len(p)
}

// canHold reports whether the folder whose path elements are dir can hold
// a file that matches p, so that a walk can skip the folders that cannot.
func (p globPattern) canHold(dir []string) bool {
	for i := range p {
		if p[:i].match(dir) || (p[i] == "**" && p[:i+1].match(dir)) {
			return true
		}
	}
	return false
}

// shellClasses turns the shell's negated classes "[!...]" in the pattern
// element e into [path.Match]'s "[^...]".
func shellClasses(e string) string {
	if !strings.Contains(e, "[!") {
		return e
	}
	b := []byte(e)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++ // an escaped character
		case '[':
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
			}
			// Skip to the end of the class, where "[" is literal.
			for i++; i < len(b) && b[i] != ']'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return string(b)
}

func matchElem(pattern, name string) bool {
	ok, _ := path.Match(pattern, name) // checked by parseGlob
	return ok
}

// A globFile is one file workspace_glob found.
type globFile struct {
	path    string // relative to the workspace
	modTime time.Time
}

// globWalk is one walk of workspace_glob through a grant's root.
type globWalk struct {
	root    *grantRoot
	base    string // the folder searched, relative to the root
	pattern globPattern
	visited int // entries read so far
	found   []globFile
}

// run walks base, depth first, reading at most maxListEntries entries,
// and reports whether that bound stopped it. Symlinks to folders are not
// followed; a symlink to a file is found, with its target's time, if the
// target is in the grant's root. A folder that cannot be read is skipped.
func (g *globWalk) run(ctx context.Context) (stopped bool, err error) {
	todo := []string{g.base}
	for len(todo) > 0 {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		dir := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		des, full := g.readDir(dir)
		var sub []string
		for _, de := range des {
			p := path.Join(dir, de.Name())
			rel := splitRel(g.base, p)
			switch {
			case de.IsDir():
				if g.pattern.canHold(rel) {
					sub = append(sub, p)
				}
			case g.pattern.match(rel):
				g.add(p, de)
			}
		}
		slices.Reverse(sub) // so that folders are walked in name order
		todo = append(todo, sub...)
		if full {
			return true, nil
		}
	}
	return false, nil
}

// readDir reads the entries of dir, sorted by name, within what remains
// of the bound, and reports whether the bound was reached.
func (g *globWalk) readDir(dir string) ([]fs.DirEntry, bool) {
	f, err := fsguard.OpenFile(g.root.Root, dir, os.O_RDONLY, 0) // never blocks on a FIFO swapped in
	if err != nil {
		return nil, false
	}
	defer f.Close()
	room := maxListEntries - g.visited
	des, err := f.ReadDir(room + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false
	}
	full := len(des) > room
	if full {
		des = des[:room]
	}
	g.visited += len(des)
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return des, full
}

// add records the file p if it is a regular file or a symlink to one in
// the grant's root.
func (g *globWalk) add(p string, de fs.DirEntry) {
	var fi fs.FileInfo
	var err error
	switch {
	case de.Type().IsRegular():
		fi, err = de.Info()
	case de.Type()&fs.ModeSymlink != 0:
		fi, err = g.root.Stat(p) // followed inside the root only
	default:
		return // devices, FIFOs, sockets
	}
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	g.found = append(g.found, globFile{path: g.root.rel(p), modTime: fi.ModTime()})
}

// splitRel returns the elements of p, a path below base, relative to base.
func splitRel(base, p string) []string {
	if base != "." {
		p = strings.TrimPrefix(p, base+"/")
	}
	return strings.Split(p, "/")
}

// glob is workspace_glob: the files under a folder whose paths (relative
// to the folder) match a pattern, newest first, as Claude Code's Glob.
// It needs the read grant of the folder searched, which covers all it
// lists, as workspace_list does; the pattern's leading literal elements
// are part of that folder ("data/**" searches data).
func (w *workspaceFS) glob(ctx context.Context, input json.RawMessage) (*ToolResult, error) {
	const tool = toolGlob
	var in struct{ Pattern, Path string }
	if res := decodeCoreInput(tool, input, &in); res != nil {
		return res, nil
	}
	lit, pattern, err := parseGlob(in.Pattern)
	if err != nil {
		return coreErrResult(tool, err), nil
	}
	if strings.HasPrefix(in.Path, "/") {
		return coreErrResult(tool, fmt.Errorf("path %q is absolute; give a folder relative to the workspace", in.Path)), nil
	}
	dir, cp, root, res := w.readRoot(ctx, tool, path.Join(in.Path, lit))
	if root == nil {
		return res, nil
	}
	defer root.Close()
	fi, err := root.Stat(root.name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && lit != "":
		return globResult(in.Pattern, nil, false), nil // the pattern's folder is not there
	case err != nil:
		auditDenied(ctx, "read", cp, err)
		return coreErrResult(tool, err), nil
	case !fi.IsDir():
		return ErrorResult(fmt.Sprintf("%s: %s is not a folder; give the folder to search in as path", tool, dir)), nil
	}
	walk := &globWalk{root: root, base: root.name, pattern: pattern}
	stopped, err := walk.run(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	return globResult(in.Pattern, walk.found, stopped), nil
}

// globResult lists found newest first, then by path, at most maxGlobFiles
// of them.
func globResult(pattern string, found []globFile, stopped bool) *ToolResult {
	slices.SortFunc(found, func(a, b globFile) int {
		if c := b.modTime.Compare(a.modTime); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	paths := make([]string, 0, min(len(found), maxGlobFiles))
	for _, f := range found[:min(len(found), maxGlobFiles)] {
		paths = append(paths, f.path)
	}
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(p + "\n")
	}
	if more := len(found) - len(paths); more > 0 {
		fmt.Fprintf(&b, "(%d more not shown)\n", more)
	}
	if len(found) == 0 {
		b.WriteString("no files match " + pattern + "\n")
	}
	if stopped {
		fmt.Fprintf(&b, "[stopped: visited %d entries; give a narrower path or pattern]\n", maxListEntries)
	}
	structured, _ := json.Marshal(struct {
		Files     []string `json:"files"`
		More      int      `json:"more,omitempty"`
		Truncated bool     `json:"truncated,omitempty"`
	}{paths, len(found) - len(paths), stopped})
	return &ToolResult{Content: b.String(), Structured: structured}
}
