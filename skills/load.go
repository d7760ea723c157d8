package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// manifestFile is the name of the optional manifest beside SKILL.md.
const manifestFile = "skill.toml"

// skillFileNames are tried in order: the spec's SKILL.md, then the
// lowercase skill.md the reference implementation also accepts.
var skillFileNames = []string{"SKILL.md", "skill.md"}

// LoadOptions configures the loaders. A nil *LoadOptions means defaults:
// lenient loading, as an agent client should do.
type LoadOptions struct {
	// Strict grades every violation of the specification as an error, as
	// `skillrun validate` and the reference validator do. When false, only
	// problems that leave nothing usable (no parsable frontmatter, no name,
	// no description, a broken skill.toml) are errors; the rest load as
	// warnings in Skill.Problems.
	Strict bool
	// DirName overrides the directory name that the skill's name must
	// match. Loaders derive it from the path; set it for an fs.FS whose
	// root has no name.
	DirName string
}

func (o *LoadOptions) strict() bool { return o != nil && o.Strict }

// A LoadError reports a skill that could not be loaded: invalid under
// strict loading, unusable under lenient loading. Problems holds every
// problem found, warnings included. I/O failures (a missing directory, a
// permission error) are returned as ordinary errors, not LoadErrors.
type LoadError struct {
	Dir      string
	Problems Problems
}

func (e *LoadError) Error() string {
	errs := e.Problems.Errors()
	if len(errs) == 1 {
		return errs[0].Error()
	}
	return fmt.Sprintf("%s: %d problems:\n%s", e.Dir, len(errs), errs.Error())
}

// Load loads the skill at path, which may be a skill directory, a SKILL.md
// file (meaning its directory) or a .zip archive.
func Load(p string, o *LoadOptions) (*Skill, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return LoadDir(p, o)
	case strings.EqualFold(filepath.Ext(p), ".zip"):
		return LoadZip(p, o)
	case isSkillFileName(filepath.Base(p)):
		return LoadDir(filepath.Dir(p), o)
	}
	return nil, fmt.Errorf("%s: not a skill directory, SKILL.md file or .zip archive", p)
}

func isSkillFileName(name string) bool {
	for _, n := range skillFileNames {
		if name == n {
			return true
		}
	}
	return false
}

// LoadDir loads the skill in directory dir. Every file access goes through
// an os.Root opened on dir, so no symlink in the skill can lead outside it.
func LoadDir(dir string, o *LoadOptions) (*Skill, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// The catalog shows the resolved path, as the reference does.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "load", Path: dir, Err: errors.New("not a directory")}
	}
	src := rootSource(abs)
	s, err := load(src, dir, filepath.Base(abs), func(name string) string { return filepath.Join(abs, name) }, o)
	if s != nil {
		s.place = abs
	}
	return s, err
}

// LoadFS loads the skill in directory dir of fsys ("." for its root). Use
// it for embed.FS skills compiled into a program. The name rule compares
// against path.Base(dir), or o.DirName when set.
func LoadFS(fsys fs.FS, dir string, o *LoadOptions) (*Skill, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "load", Path: dir, Err: fs.ErrInvalid}
	}
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, err
	}
	name := path.Base(dir)
	if dir == "." {
		name = ""
	}
	return load(fsSource{sub}, dir, name, func(n string) string { return path.Join(dir, n) }, o)
}

// missingSkillFile says why no SKILL.md could be read: none at all, or
// one that is there but not a regular file inside the folder, such as a
// symbolic link leading out of it (the reference validator follows such a
// link; skillrun never reads outside a skill folder).
func missingSkillFile(fsys fs.FS) string {
	for _, n := range skillFileNames {
		fi, err := fs.Lstat(fsys, n)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := fs.ReadLink(fsys, n)
			if err != nil {
				target = "?"
			}
			return fmt.Sprintf("%s is a symbolic link to %q, which leads out of the skill folder (or to no regular file); skillrun reads only files inside a skill: put the file itself in the folder", n, target)
		}
		return fmt.Sprintf("%s is not a regular file (%s); it must be the skill's Markdown file", n, fi.Mode().Type())
	}
	return "missing required file: SKILL.md"
}

// load is the loader shared by every source: find and parse SKILL.md,
// parse skill.toml, check manifest paths against the real files, grade.
func load(src fileSource, display, dirName string, location func(string) string, o *LoadOptions) (*Skill, error) {
	if o != nil && o.DirName != "" {
		dirName = o.DirName
	}
	fsys, closer, err := src.open()
	if err != nil {
		return nil, err
	}
	defer closer.Close()

	fileName := ""
	for _, n := range skillFileNames {
		if fi, err := fs.Stat(fsys, n); err == nil && fi.Mode().IsRegular() {
			fileName = n
			break
		}
	}
	if fileName == "" {
		ps := Problems{{File: display, Code: codeSkillFileMissing, Message: missingSkillFile(fsys)}}
		grade(ps, o.strict())
		return nil, &LoadError{Dir: display, Problems: ps}
	}
	file := joinDisplay(display, fileName)
	data, err := readBounded(fsys, fileName, maxSkillFileSize)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			ps := Problems{{File: file, Code: codeTooLarge, Message: fmt.Sprintf("SKILL.md is larger than the %d KiB limit", maxSkillFileSize>>10)}}
			grade(ps, o.strict())
			return nil, &LoadError{Dir: display, Problems: ps}
		}
		return nil, err
	}
	s, ps := parseSkillMD(data, file, dirName)

	mfile := joinDisplay(display, manifestFile)
	if mdata, err := readBounded(fsys, manifestFile, maxManifestSize); err == nil {
		m, mps := ParseManifest(mdata, mfile)
		for i := range mps {
			if mps[i].Code == "" {
				mps[i].Code = codeManifest
			}
		}
		ps = append(ps, mps...)
		if m != nil && len(mps.Errors()) == 0 {
			ps = append(ps, checkManifestPaths(fsys, m, mfile)...)
		}
		if s != nil {
			s.Manifest = m
		}
	} else if errors.Is(err, errTooLarge) {
		ps = append(ps, Problem{File: mfile, Code: codeManifest, Message: fmt.Sprintf("skill.toml is larger than the %d KiB limit", maxManifestSize>>10)})
	} else if !errors.Is(err, fs.ErrNotExist) {
		ps = append(ps, Problem{File: mfile, Code: codeManifest, Message: fmt.Sprintf("reading skill.toml: %v", err)})
	}

	ps = append(ps, checkLinks(fsys, display)...)

	grade(ps, o.strict())
	if s != nil {
		s.Dir, s.FileName, s.Location, s.files, s.folder = display, fileName, location(fileName), src, dirName
		s.Problems = ps.Warnings()
	}
	if len(ps.Errors()) > 0 {
		return s, &LoadError{Dir: display, Problems: ps}
	}
	return s, nil
}

// checkManifestPaths rejects manifest paths that exist but lead outside the
// skill folder through a symlink. The lexical checks (no "..", not
// absolute) are ParseManifest's; a module that does not exist yet is fine,
// since `skillrun build` makes it.
func checkManifestPaths(fsys fs.FS, m *Manifest, file string) Problems {
	var ps Problems
	for _, name := range m.ScriptNames() {
		sc := m.Scripts[name]
		paths := map[string]string{"module": sc.Module, "plugin": sc.Plugin, "source": sc.Source,
			"input_schema": sc.InputSchema, "output_schema": sc.OutputSchema}
		if sc.Build != nil {
			paths["build.dir"] = sc.Build.Dir
		}
		for _, key := range sortedKeys(paths) {
			p := paths[key]
			if p == "" {
				continue
			}
			if _, err := fs.Stat(fsys, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				ps = append(ps, Problem{File: file, Field: "scripts." + name + "." + key, Code: codeManifestPathOutside,
					Message: fmt.Sprintf("scripts.%s.%s %q cannot be used: %v", name, key, p, describeFSError(err))})
			}
		}
	}
	return ps
}

func joinDisplay(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

var errTooLarge = errors.New("file too large")

// readBounded reads name from fsys, refusing files over limit without
// reading them whole.
func readBounded(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(512)
	if fi, err := f.Stat(); err == nil {
		if fi.IsDir() {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
		}
		if fi.Size() > limit {
			return nil, errTooLarge
		}
		size = fi.Size() + 1 // +1 so a file that grew is noticed
	}
	// The size from Stat is a hint, not a promise: the limit is checked
	// as the bytes arrive (as os.ReadFile reads, plus the bound).
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, errTooLarge
		}
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// rootSource serves a skill directory through os.Root.
type rootSource string

func (r rootSource) open() (fs.FS, io.Closer, error) {
	root, err := os.OpenRoot(string(r))
	if err != nil {
		return nil, nil, err
	}
	return root.FS(), root, nil
}

// fsSource serves a skill from an fs.FS (embed.FS, zip, fstest.MapFS).
type fsSource struct{ fsys fs.FS }

func (s fsSource) open() (fs.FS, io.Closer, error) {
	return s.fsys, nopCloser{}, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
