package skillpkg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/skills"
)

// LockFile is the lockfile's name. It is not `npx skills`'s
// skills-lock.json: the entries carry fields that tool does not write
// (commit, skillPath) and a digest it does not compute, and two tools
// rewriting one file would fight over it.
const LockFile = "skillrun-lock.json"

// lockVersion is the only lock format this skillrun reads and writes.
const lockVersion = 1

// Bounds on reading a lock, which may come from anyone's repository.
const (
	maxLockBytes   = 8 << 20
	maxLockEntries = 10_000
)

// A Lock is the content of skillrun-lock.json: the skills installed from
// sources, by name. It is plain data.
type Lock struct {
	Version int              `json:"version"`
	Skills  map[string]Entry `json:"skills"`
}

// An Entry pins one installed skill. The first three fields are those of
// `npx skills`'s skills-lock.json; the rest are what pinning needs.
type Entry struct {
	// Source is the source as the user gave it, without @ref.
	Source string `json:"source"`
	// SourceType is "github", "git" or "local".
	SourceType string `json:"sourceType"`
	// ComputedHash is the skill's digest ([skills.Skill.Digest]), the
	// same "sha256:HEX" a policy pins with digest = "...".
	ComputedHash string `json:"computedHash"`
	// URL is what git clones, or the folder copied for a plain folder.
	URL string `json:"url"`
	// Ref is the branch, tag or commit asked for ("" for the default
	// branch): what `skillrun update` follows.
	Ref string `json:"ref"`
	// Commit is the full commit installed; "" for a plain folder.
	Commit string `json:"commit"`
	// SkillPath is the skill's folder in the repository, slash-separated
	// ("." for a repository whose root is the skill).
	SkillPath string `json:"skillPath"`
}

var hashPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// ReadLock reads the lock at file; a missing file is an empty lock. A
// malformed or hand-edited lock is an error naming the entry and field.
func ReadLock(file string) (*Lock, error) {
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{Version: lockVersion, Skills: map[string]Entry{}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLockBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxLockBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, maxLockBytes)
	}
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(data))
	// An unknown field is most likely a misspelt one ("comit"), which
	// would otherwise unpin the skill silently.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %w", file, jsonError(data, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON value", file)
	}
	if err := l.check(); err != nil {
		return nil, fmt.Errorf("%s: %w (fix the entry, or remove it and run skillrun add again)", file, err)
	}
	return &l, nil
}

// check validates every entry, so that nothing read from a lock reaches
// git or the file system unchecked.
func (l *Lock) check() error {
	if l.Version != lockVersion {
		return fmt.Errorf("version %d: this skillrun reads version %d", l.Version, lockVersion)
	}
	if l.Skills == nil {
		l.Skills = map[string]Entry{}
	}
	if len(l.Skills) > maxLockEntries {
		return fmt.Errorf("more than %d skills", maxLockEntries)
	}
	for _, name := range slices.Sorted(maps.Keys(l.Skills)) {
		if err := l.Skills[name].check(name); err != nil {
			return err
		}
	}
	return nil
}

func (e Entry) check(name string) error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("skill %q: %s: %s", name, field, fmt.Sprintf(format, args...))
	}
	if err := skills.ValidateName(name); err != nil {
		return fmt.Errorf("skill %q: the name is not a valid skill name: %w", name, err)
	}
	switch e.SourceType {
	case TypeGitHub, TypeGit, TypeLocal:
	default:
		return bad("sourceType", "%q is not github, git or local", e.SourceType)
	}
	if e.URL == "" || strings.HasPrefix(e.URL, "-") || strings.ContainsAny(e.URL, "\x00\n\r") {
		return bad("url", "%q is not a repository URL or folder", e.URL)
	}
	if e.Commit != "" && !fullCommit.MatchString(e.Commit) {
		return bad("commit", "%q is not a full commit (40 lowercase hex digits)", e.Commit)
	}
	if e.Commit == "" && e.SourceType != TypeLocal {
		return bad("commit", "missing: a %s source is pinned by its commit", e.SourceType)
	}
	if e.Ref != "" {
		if err := checkRef(e.Ref); err != nil {
			return bad("ref", "%v", err)
		}
	}
	if e.SkillPath == "" || path.IsAbs(e.SkillPath) || strings.Contains(e.SkillPath, `\`) || !fs.ValidPath(e.SkillPath) {
		return bad("skillPath", "%q must be a relative slash path inside the repository, without ..", e.SkillPath)
	}
	if !hashPattern.MatchString(e.ComputedHash) {
		return bad("computedHash", "%q is not sha256: and 64 lowercase hex digits", e.ComputedHash)
	}
	return nil
}

// Write writes the lock atomically: sorted by name (encoding/json sorts
// map keys), indented, with a trailing newline, so that it diffs well in
// review.
func (l *Lock) Write(file string) error {
	l.Version = lockVersion
	if l.Skills == nil {
		l.Skills = map[string]Entry{}
	}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	return safefile.WriteAtomic(file, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// jsonError adds the line and column (1-based, in bytes) to a decoding
// error that has an offset, so that a hand-edited lock can be fixed.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		off = se.Offset - 1 // Offset counts the offending byte
	} else if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		off = te.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		off = int64(len(data))
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}
