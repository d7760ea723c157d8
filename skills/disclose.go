package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Bounds on what disclosure reads from a skill folder.
const (
	// maxResourceSize bounds one level-3 read.
	maxResourceSize = 8 << 20
	// MaxListedFiles bounds the file list returned on activation.
	MaxListedFiles = 1000
	// maxListDepth bounds how deep activation lists directories.
	maxListDepth = 16
)

// An Activation is level 2 of progressive disclosure: the skill's
// instructions and the names of the files it can read at level 3.
type Activation struct {
	Name string `json:"name"`
	// Body is the Markdown of SKILL.md after the frontmatter.
	Body string `json:"body"`
	// Files are the skill's regular files, slash-separated and relative to
	// the skill root, sorted. SKILL.md itself is included.
	Files []string `json:"files"`
	// Truncated is set when the skill has more than MaxListedFiles files.
	Truncated bool `json:"truncated,omitempty"`
}

// Activate returns level 2: the body and the skill's file list.
func (s *Skill) Activate() (*Activation, error) {
	files, truncated, err := s.Files()
	if err != nil {
		return nil, err
	}
	return &Activation{Name: s.Name, Body: s.Body, Files: files, Truncated: truncated}, nil
}

// Files lists the skill's regular files (relative slash paths, sorted), at
// most MaxListedFiles of them; truncated reports whether there were more.
// Hidden directories such as .git are skipped, and symlinks are listed only
// when they resolve to a regular file inside the skill.
func (s *Skill) Files() (files []string, truncated bool, err error) {
	fsys, closer, err := s.openFiles()
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil //nolint:nilerr // an unreadable entry is left out; listing goes on
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(p, "/") >= maxListDepth) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// os.Root refuses links leading out: such a link is not listed.
			if fi, serr := fs.Stat(fsys, p); serr != nil || !fi.Mode().IsRegular() {
				return nil //nolint:nilerr // skipping the entry is the answer
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		if len(files) == MaxListedFiles {
			truncated = true
			return fs.SkipAll
		}
		files = append(files, p)
		return nil
	})
	sort.Strings(files)
	return files, truncated, err
}

// ReadResource returns the content of one file of the skill (level 3).
// name is a slash-separated path relative to the skill root, such as
// "references/forms.md". Absolute paths, ".." and symlinks leading outside
// the skill fail with an error matching [ErrOutsideSkill]; files over
// maxResourceSize fail without being read whole.
func (s *Skill) ReadResource(name string) ([]byte, error) {
	clean, err := resourcePath(name)
	if err != nil {
		return nil, err
	}
	fsys, closer, err := s.openFiles()
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	data, err := readBounded(fsys, clean, maxResourceSize)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, errTooLarge):
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("file is larger than the %d MiB limit", maxResourceSize>>20)}
	case isEscape(err):
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrOutsideSkill}
	}
	return nil, &fs.PathError{Op: "read", Path: name, Err: describeFSError(err)}
}

// resourcePath checks a guest- or model-supplied path lexically, before any
// file system access.
func resourcePath(name string) (string, error) {
	bad := func(why string) error {
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %s", ErrOutsideSkill, why)}
	}
	switch {
	case name == "":
		return "", &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	case strings.ContainsRune(name, 0):
		return "", bad("contains a NUL byte")
	case strings.Contains(name, `\`):
		return "", bad(`contains a backslash; use / between directories`)
	case strings.HasPrefix(name, "/") || (len(name) > 1 && name[1] == ':'):
		return "", bad("is absolute; give a path relative to the skill folder")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", bad(`contains ".."`)
		}
	}
	clean := path.Clean(name)
	if !fs.ValidPath(clean) || clean == "." {
		return "", &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return clean, nil
}

// errNoFiles is the error of a skill that was constructed, not loaded.
var errNoFiles = errors.New("skill has no files (constructed, not loaded)")

// openFiles opens the skill's files (a folder's root, a zip, an fs.FS);
// close the closer when done.
func (s *Skill) openFiles() (fs.FS, io.Closer, error) {
	if s.files == nil {
		return nil, nil, errNoFiles
	}
	return s.files.open()
}
