package pydeps

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Scan's bounds: a skill is a handful of scripts; anything far larger is
// a vendored tree or an attack, and reading it whole would be the bug.
const (
	maxSourceBytes   = 1 << 20 // per .py or requirements file
	maxScannedFiles  = 10000   // entries walked
	maxIncludeDepth  = 8       // nested -r includes
	pep723Type       = "script"
	requirementsFile = "requirements.txt"
)

// skipDirs are folders that hold no skill code of their own: version
// control, other ecosystems' packages, bytecode, and virtual environments
// (whose site-packages would otherwise read as thousands of imports).
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, "__pycache__": true,
	".venv": true, "venv": true, "site-packages": true,
}

// A Need is what a skill's scripts require.
type Need struct {
	Requirements []Requirement // deduplicated by normalized name, first source kept
	// Unknown are the modules that scripts declaring nothing import and
	// that neither the standard library, the skill itself nor the table
	// of known distributions ([DistributionFor]) covers, first import
	// first. No distribution is guessed for them: a package that took the
	// import's name on the index would otherwise be pinned and run with
	// the skill's grants. A declared requirement, or one the operator
	// names, must provide them ([Site.Provides]).
	Unknown []Import
	// Skipped names files that were not read and why (too large), so that
	// a missing requirement can be traced.
	Skipped []string
	// Python are the scripts whose requires-python skillrun's Python does
	// not meet. They are warnings: a script that asks for a newer Python
	// usually runs on the older one, as `python3 script.py` would try.
	Python []PythonMismatch
}

// A PythonMismatch is a script's PEP 723 requires-python that skillrun's
// Python does not meet.
type PythonMismatch struct {
	Where    string `json:"where"`    // file:line of the "# /// script" block, relative to the skill
	Requires string `json:"requires"` // the specifier, as written
	Have     string `json:"have"`     // skillrun's Python version
}

func (m PythonMismatch) String() string {
	return fmt.Sprintf("%s: the script requires Python %s; skillrun's sandbox runs Python %s", m.Where, m.Requires, m.Have)
}

// ScriptPython reads the PEP 723 block of one script (file names it in
// messages) and returns its requires-python when skillrun's Python does
// not meet it, nil when it does or says nothing. A malformed block is an
// error.
func ScriptPython(file string, src []byte) (*PythonMismatch, error) {
	s := &scanner{need: &Need{}, seen: map[string]int{}}
	if _, err := s.pep723(file, src); err != nil {
		return nil, err
	}
	if len(s.need.Python) == 0 {
		return nil, nil
	}
	return &s.need.Python[0], nil
}

// Scan reads the skill folder and returns what its Python scripts need:
// the dependencies of PEP 723 inline metadata blocks and requirements.txt
// files, and for .py files that declare nothing their top-level imports,
// less the standard library and the skill's own modules. Declared
// requirements come first so that their specifiers win over the bare
// names that imports give.
//
// Everything is read through an [os.Root], so no symlink leads outside
// the skill.
func Scan(skillDir string) (*Need, error) {
	root, err := os.OpenRoot(skillDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	s := &scanner{fsys: root.FS(), need: &Need{}, seen: map[string]int{}}
	var pyFiles, reqFiles []string
	count := 0
	err = fs.WalkDir(s.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if count++; count > maxScannedFiles {
			return fmt.Errorf("more than %d files: not a skill folder?", maxScannedFiles)
		}
		if d.IsDir() {
			if p != "." && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".py"):
			pyFiles = append(pyFiles, p)
		case d.Name() == requirementsFile:
			reqFiles = append(reqFiles, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", skillDir, err)
	}
	type pending struct {
		file    string
		imports []importStmt
	}
	var undeclared []pending
	for _, p := range pyFiles {
		src, err := s.read(p)
		if errors.Is(err, errTooLarge) {
			s.need.Skipped = append(s.need.Skipped, p+": larger than 1 MiB, not read")
			continue
		}
		if err != nil {
			return nil, err
		}
		declared, err := s.pep723(p, src)
		if err != nil {
			return nil, err
		}
		if !declared {
			undeclared = append(undeclared, pending{p, findImports(src)})
		}
	}
	for _, p := range reqFiles {
		if err := s.requirements(p, nil); err != nil {
			return nil, err
		}
	}
	unknown := map[string]bool{}
	for _, u := range undeclared {
		for _, im := range u.imports {
			if IsStdlib(im.module) || s.ownModule(u.file, im.module) {
				continue
			}
			where := fmt.Sprintf("%s:%d", u.file, im.line)
			dist, known := DistributionFor(im.module)
			if !known {
				if !unknown[im.module] {
					unknown[im.module] = true
					s.need.Unknown = append(s.need.Unknown, Import{Module: im.module, Where: where})
				}
				continue
			}
			s.add(Requirement{Name: dist, Source: fmt.Sprintf("%s imports %s", where, im.module)})
		}
	}
	return s.need, nil
}

// An Import is a top-level module a script imports, and where it first
// does.
type Import struct {
	Module string `json:"module"`
	Where  string `json:"where"` // file:line, relative to the skill
}

var errTooLarge = errors.New("file too large")

type scanner struct {
	fsys fs.FS
	need *Need
	seen map[string]int // normalized name -> index in need.Requirements
}

// read reads a file of the skill, at most maxSourceBytes.
func (s *scanner) read(p string) ([]byte, error) {
	f, err := s.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(b) > maxSourceBytes {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", p, errTooLarge, maxSourceBytes)
	}
	return b, nil
}

// add records a requirement, deduplicated by normalized name: the first
// source is kept, and a later mention's specifiers and extras are merged
// into it so that no constraint is lost, unless the later one carries a
// different marker (then it concerns another environment, and the first
// stands as written).
func (s *scanner) add(r Requirement) {
	key := Normalize(r.Name)
	i, ok := s.seen[key]
	if !ok {
		s.seen[key] = len(s.need.Requirements)
		s.need.Requirements = append(s.need.Requirements, r)
		return
	}
	if r.Marker != "" && r.Marker != s.need.Requirements[i].Marker {
		return
	}
	first := &s.need.Requirements[i]
	if r.Specifier != "" && first.Specifier != r.Specifier {
		have := strings.Split(first.Specifier, ",")
		for c := range strings.SplitSeq(r.Specifier, ",") {
			if !slices.Contains(have, c) {
				have = append(have, c)
			}
		}
		first.Specifier = strings.Trim(strings.Join(have, ","), ",")
	}
	for _, e := range r.Extras {
		if !slices.ContainsFunc(first.Extras, func(x string) bool { return Normalize(x) == Normalize(e) }) {
			first.Extras = append(first.Extras, e)
		}
	}
}

// pep723 reads the file's "# /// script" block, if any (PEP 723): it
// reports whether there was one, and adds its dependencies.
func (s *scanner) pep723(file string, src []byte) (bool, error) {
	var (
		in        bool
		start     int
		body      strings.Builder
		found     bool
		lineNo    int
		blockType string
	)
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), maxSourceBytes+1)
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if !in {
			if t, ok := strings.CutPrefix(line, "# /// "); ok && isBlockType(t) {
				in, start, blockType = true, lineNo, t
				body.Reset()
			}
			continue
		}
		switch {
		case line == "# ///":
			in = false
			if blockType != pep723Type {
				continue // another tool's block
			}
			if found {
				return false, fmt.Errorf("%s:%d: a second # /// script block (PEP 723 allows one)", file, start)
			}
			found = true
			if err := s.pep723Body(file, start, body.String()); err != nil {
				return false, err
			}
		case line == "#":
			body.WriteString("\n")
		case strings.HasPrefix(line, "# "):
			body.WriteString(line[2:] + "\n")
		default:
			// PEP 723: a block ends at the first line that is not a
			// comment; an unclosed script block is an error.
			in = false
			if blockType == pep723Type {
				return false, fmt.Errorf("%s:%d: # /// script block is not closed by a line \"# ///\"", file, start)
			}
		}
	}
	if in && blockType == pep723Type {
		return false, fmt.Errorf("%s:%d: # /// script block is not closed by a line \"# ///\"", file, start)
	}
	return found, nil
}

func isBlockType(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// pep723Body decodes a block's TOML; start is the line of "# /// script",
// so the TOML's line n is the file's line start+n.
func (s *scanner) pep723Body(file string, start int, body string) error {
	var meta struct {
		Dependencies   []string `toml:"dependencies"`
		RequiresPython string   `toml:"requires-python"`
	}
	if _, err := toml.Decode(body, &meta); err != nil {
		line := start
		var perr toml.ParseError
		if errors.As(err, &perr) {
			line += perr.Position.Line
		}
		return fmt.Errorf("%s:%d: invalid PEP 723 block: %w", file, line, err)
	}
	if meta.RequiresPython != "" {
		spec, err := ParseSpecifier(meta.RequiresPython)
		if err != nil {
			return fmt.Errorf("%s:%d: invalid PEP 723 block: requires-python: %w", file, start, err)
		}
		if have := interpreterVersion(); !spec.Contains(have) {
			s.need.Python = append(s.need.Python, PythonMismatch{
				Where: fmt.Sprintf("%s:%d", file, start), Requires: meta.RequiresPython, Have: have.String()})
		}
	}
	for _, d := range meta.Dependencies {
		r, err := ParseRequirement(d)
		if err != nil {
			return fmt.Errorf("%s:%d: invalid PEP 723 block: %w", file, start, err)
		}
		r.Source = fmt.Sprintf("%s:%d (PEP 723)", file, start)
		s.add(r)
	}
	return nil
}

// requirements reads a requirements file: one requirement a line, with
// comments, blank lines, backslash continuations, "-r other.txt" includes
// (relative to the file, confined to the skill) and option lines (which
// choose indexes or hashes: ignored, since the resolver's options decide).
// stack holds the including files, to refuse cycles.
func (s *scanner) requirements(file string, stack []string) error {
	if slices.Contains(stack, file) {
		return fmt.Errorf("%s: -r include cycle: %s", file, strings.Join(append(stack, file), " -> "))
	}
	if len(stack) >= maxIncludeDepth {
		return fmt.Errorf("%s: -r includes nested deeper than %d", file, maxIncludeDepth)
	}
	src, err := s.read(file)
	if err != nil {
		return err
	}
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimRight(lines[i], "\r")
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + strings.TrimRight(lines[i], "\r")
		}
		if j := commentStart(line); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		where := fmt.Sprintf("%s:%d", file, lineNo)
		if strings.HasPrefix(line, "-") {
			inc, ok := includeTarget(line)
			if !ok {
				continue // --index-url, --hash, -c constraints ...: not ours to follow
			}
			target := path.Join(path.Dir(file), inc)
			if path.IsAbs(inc) || !fs.ValidPath(target) {
				return fmt.Errorf("%s: -r %s leads outside the skill", where, inc)
			}
			if err := s.requirements(target, append(stack, file)); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("%s: -r %s: no such file in the skill", where, inc)
				}
				return fmt.Errorf("%s: -r %s: %w", where, inc, err)
			}
			continue
		}
		// Per-requirement options ("pkg==1 --hash=sha256:...") follow it.
		if j := strings.Index(line, " --"); j >= 0 {
			line = strings.TrimSpace(line[:j])
		}
		r, err := ParseRequirement(line)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		r.Source = where
		s.add(r)
	}
	return nil
}

// commentStart finds a "#" that starts a comment: at the line's start or
// after whitespace (pip's rule, which keeps URL fragments intact).
func commentStart(line string) int {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return i
		}
	}
	return -1
}

// includeTarget returns the file of an "-r FILE", "-rFILE",
// "--requirement FILE" or "--requirement=FILE" line.
func includeTarget(line string) (string, bool) {
	for _, p := range []string{"--requirement=", "--requirement ", "-r ", "-r"} {
		if rest, ok := strings.CutPrefix(line, p); ok {
			rest = strings.TrimSpace(rest)
			return rest, rest != ""
		}
	}
	return "", false
}

// ownModule reports whether a module is part of the skill: a .py file or
// a package folder beside the importing script or in any folder above it
// up to the skill's root (scripts that put their parent on sys.path), or
// in the skill's scripts/, lib/ or scripts/lib/ folders.
func (s *scanner) ownModule(file, module string) bool {
	var dirs []string
	for d := path.Dir(file); ; d = path.Dir(d) {
		dirs = append(dirs, d)
		if d == "." {
			break
		}
	}
	dirs = append(dirs, "scripts", "lib", "scripts/lib")
	for _, d := range dirs {
		if fi, err := fs.Stat(s.fsys, path.Join(d, module+".py")); err == nil && !fi.IsDir() {
			return true
		}
		if fi, err := fs.Stat(s.fsys, path.Join(d, module)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// interpreterVersion is the Python that skillrun runs.
var interpreterVersion = sync.OnceValue(func() Version { return mustVersion(wasiEnv["python_full_version"]) })

func mustVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}
