package skillpkg

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/skills"
)

// Bounds on reading a skill's scripts for what they appear to need.
const (
	maxScanFiles     = 2000
	maxScanFileBytes = 1 << 20
)

// A Caps is what a skill asks for: what its skill.toml declares and, for
// scripts no manifest describes, what they appear to need. The second
// is a guess from reading the text: it names where it looked so that a
// reader can check, and it never grants anything.
type Caps struct {
	// Declared are the manifest's capabilities, one line per level
	// ("skill: read=skill, net=api.example.com", "script fill: ...").
	Declared []string
	// Needs are the guesses: "network", "subprocess", "packages".
	Needs []Need
}

// A Need is one thing scripts appear to need, with the first place seen.
type Need struct {
	What   string // "network", "subprocess" or "packages"
	Detail string // what was seen: "requests", "curl", "yaml, requests"
	Where  string // file:line of the first hit
}

func (n Need) String() string {
	return fmt.Sprintf("appears to need %s: %s (%s)", n.What, n.Detail, n.Where)
}

// summary is n without its place, for comparing two versions of a skill.
func (n Need) summary() string { return "appears to need " + n.What + ": " + n.Detail }

// Lines renders c for people, declared first.
func (c Caps) Lines() []string {
	lines := slices.Clone(c.Declared)
	if len(lines) == 0 {
		lines = append(lines, "declares: nothing (no skill.toml capabilities)")
	}
	for _, n := range c.Needs {
		lines = append(lines, n.String())
	}
	return lines
}

func (c Caps) summaries() []string {
	out := slices.Clone(c.Declared)
	for _, n := range c.Needs {
		out = append(out, n.summary())
	}
	return out
}

// Diff lists what changed from before to after, "- " for a line gone and
// "+ " for a line new, ignoring where a guess was seen (a moved line is
// no change).
func Diff(before, after Caps) []string {
	b, a := before.summaries(), after.summaries()
	var out []string
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "+ "+l)
		}
	}
	return out
}

// inspect reports what the skill loaded from dir asks for.
func inspect(s *skills.Skill, dir string) Caps {
	var c Caps
	if m := s.Manifest; m != nil {
		if !m.Capabilities.IsZero() {
			c.Declared = append(c.Declared, "declares: "+capabilities.Describe(m.Capabilities))
		}
		for _, name := range m.ScriptNames() {
			if sc := m.Scripts[name]; sc != nil && !sc.Capabilities.IsZero() {
				c.Declared = append(c.Declared, fmt.Sprintf("script %s declares: %s", name, capabilities.Describe(sc.Capabilities)))
			}
		}
	}
	c.Needs = scanNeeds(dir, declaredSources(s))
	return c
}

// declaredSources are the script files a manifest describes: their needs
// are declared, not guessed.
func declaredSources(s *skills.Skill) map[string]bool {
	out := map[string]bool{}
	if s.Manifest == nil {
		return out
	}
	for _, sc := range s.Manifest.Scripts {
		if sc != nil && sc.Source != "" {
			out[path.Clean(sc.Source)] = true
		}
	}
	return out
}

// A pattern is a sign in source text that a script needs something.
type pattern struct {
	what  string
	langs []string // file extensions, without the dot
	re    *regexp.Regexp
}

var (
	pyExt = []string{"py"}
	jsExt = []string{"js", "mjs", "cjs", "ts", "mts"}
	shExt = []string{"sh", "bash"}
)

// patterns are matched line by line. They are deliberately plain: a
// reader can see why a line matched.
var patterns = []pattern{
	{"network", pyExt, regexp.MustCompile(`^\s*(?:import|from)\s+(requests|urllib|urllib3|http\.client|socket|httpx|aiohttp)\b`)},
	{"network", jsExt, regexp.MustCompile(`\b(fetch)\s*\(|require\(\s*['"](?:node:)?(https?|net)['"]\s*\)|from\s+['"](?:node:)?(https?|net)['"]`)},
	{"network", shExt, regexp.MustCompile(`(?:^|[\s;|&(])(curl|wget)\b`)},
	{"subprocess", pyExt, regexp.MustCompile(`\b(subprocess|os\.system|os\.popen|os\.exec\w*|os\.spawn\w*)\b`)},
	{"subprocess", jsExt, regexp.MustCompile(`(child_process)`)},
}

// scanNeeds reads the skill's script files (not those in declared) for
// the first sign of each need, and asks package pydeps what Python
// packages they import.
func scanNeeds(dir string, declared map[string]bool) []Need {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil
	}
	defer root.Close()
	fsys := root.FS()
	first := map[string]Need{}
	n := 0
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // unreadable: nothing to guess from
		}
		if d.IsDir() {
			if p != "." && findSkipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if n++; n > maxScanFiles {
			return fs.SkipAll
		}
		ext := strings.TrimPrefix(path.Ext(p), ".")
		if !d.Type().IsRegular() || declared[p] || !slices.Contains(slices.Concat(pyExt, jsExt, shExt), ext) {
			return nil
		}
		scanFile(fsys, p, ext, first)
		return nil
	})
	var out []Need
	for _, what := range []string{"network", "subprocess"} {
		if nd, ok := first[what]; ok {
			out = append(out, nd)
		}
	}
	if pk, ok := packages(dir); ok {
		out = append(out, pk)
	}
	return out
}

func scanFile(fsys fs.FS, p, ext string, first map[string]Need) {
	f, err := fsys.Open(p)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxScanFileBytes))
	sc.Buffer(make([]byte, 0, 64<<10), maxScanFileBytes)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		for _, pt := range patterns {
			if _, done := first[pt.what]; done || !slices.Contains(pt.langs, ext) {
				continue
			}
			if m := pt.re.FindStringSubmatch(text); m != nil {
				first[pt.what] = Need{What: pt.what, Detail: firstGroup(m), Where: fmt.Sprintf("%s:%d", p, line)}
			}
		}
	}
}

func firstGroup(m []string) string {
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return m[0]
}

// packages are the Python packages the scripts declare or import, as
// `skillrun deps` would fetch them.
func packages(dir string) (Need, bool) {
	need, err := pydeps.Scan(dir)
	if err != nil || need == nil {
		return Need{}, false
	}
	var names []string
	where := ""
	for _, r := range need.Requirements {
		names = append(names, r.Name)
		if where == "" {
			where = r.Source
		}
	}
	for _, u := range need.Unknown {
		names = append(names, u.Module)
		if where == "" {
			where = u.Where
		}
	}
	if len(names) == 0 {
		return Need{}, false
	}
	slices.Sort(names)
	return Need{What: "packages", Detail: strings.Join(slices.Compact(names), ", "), Where: where}, true
}
