package capabilities

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Root is one of the two directories a sandboxed script can ever see.
// There is deliberately no way to name a host path: a skill can only ask
// for its own folder or the workspace the operator chose.
type Root int

const (
	// RootSkill is the skill's own folder, mounted read-only at /skill.
	// Its skill.toml word is "skill".
	RootSkill Root = iota + 1 // the zero Root is invalid, so a zero Path grants nothing
	// RootWorkspace is the workspace the operator chose, mounted at
	// /workspace. Its skill.toml word is "workspace".
	RootWorkspace
)

// String returns the skill.toml word for the root: "skill" or "workspace".
func (r Root) String() string {
	switch r {
	case RootSkill:
		return "skill"
	case RootWorkspace:
		return "workspace"
	}
	return "Root(" + strconv.Itoa(int(r)) + ")"
}

// GuestPath returns where the root is mounted inside the sandbox: "/skill"
// or "/workspace".
func (r Root) GuestPath() string { return "/" + r.String() }

// maxPathLen bounds the text of a Path; no real sub-path is longer.
const maxPathLen = 1024

// A Path names a directory (or file) a script may read or write, as written
// in the read and write keys of skill.toml: a [Root] and a sub-path below it.
//
// Its text form is the root word, optionally followed by a slash and a
// relative sub-path: "skill", "workspace", "workspace/data",
// "skill/references". A single trailing slash is accepted and dropped
// ("workspace/data/" is "workspace/data"), since it names the same directory;
// every other irregularity (empty, absolute, "..", ".", backslashes, empty
// segments, control characters) is rejected rather than cleaned, so that what
// a grant says is exactly what it means.
type Path struct {
	Root Root
	// Sub is the path below Root: "" for the root itself, otherwise a clean
	// slash-separated relative path such as "data" or "data/in".
	Sub string
}

// ParsePath parses the text form of a [Path].
func ParsePath(s string) (Path, error) {
	bad := func(why string) (Path, error) {
		return Path{}, fmt.Errorf("invalid path %q: %s", s, why)
	}
	const forms = `write "skill", "workspace", or a sub-path such as "workspace/data"`
	if s == "" {
		return bad("empty; " + forms)
	}
	if len(s) > maxPathLen {
		return bad(fmt.Sprintf("longer than %d bytes", maxPathLen))
	}
	if !utf8.ValidString(s) {
		return bad("not valid UTF-8")
	}
	for _, r := range s {
		if r == 0 || unicode.IsControl(r) {
			return bad("contains a control character")
		}
	}
	if strings.Contains(s, `\`) {
		return bad(`contains a backslash; use "/" between segments`)
	}
	if strings.HasPrefix(s, "/") {
		return bad("absolute paths are not allowed; " + forms)
	}
	word, sub, hasSub := strings.Cut(s, "/")
	var p Path
	switch word {
	case "skill":
		p.Root = RootSkill
	case "workspace":
		p.Root = RootWorkspace
	default:
		return bad(fmt.Sprintf("must start with \"skill\" or \"workspace\"; %s", forms))
	}
	sub = strings.TrimSuffix(sub, "/")
	if hasSub && sub == "" && s != word+"/" {
		return bad("empty path segment")
	}
	if sub != "" {
		for seg := range strings.SplitSeq(sub, "/") {
			switch seg {
			case "":
				return bad("empty path segment")
			case ".", "..":
				return bad(fmt.Sprintf("%q segments are not allowed", seg))
			}
		}
	}
	p.Sub = sub
	return p, nil
}

// String returns the skill.toml text of the path ("workspace/data"), which
// [ParsePath] reads back to the same Path.
func (p Path) String() string {
	if p.Sub == "" {
		return p.Root.String()
	}
	return p.Root.String() + "/" + p.Sub
}

// GuestPath returns the path as the script sees it inside the sandbox:
// "/workspace/data".
func (p Path) GuestPath() string {
	if p.Sub == "" {
		return p.Root.GuestPath()
	}
	return p.Root.GuestPath() + "/" + p.Sub
}

// Contains reports whether other is p or lies below it. It compares whole
// path segments: "workspace/data" contains "workspace/data/in" but not
// "workspace/database", and "skill" never contains anything in "workspace".
func (p Path) Contains(other Path) bool {
	if p.Root != other.Root {
		return false
	}
	return p.Sub == "" || other.Sub == p.Sub || strings.HasPrefix(other.Sub, p.Sub+"/")
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [ParsePath].
func (p *Path) UnmarshalText(text []byte) error {
	v, err := ParsePath(string(text))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text is [Path.String].
func (p Path) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// validate checks a Path built in Go code rather than parsed: it must be
// what [ParsePath] would have produced from its own text.
func (p Path) validate() error {
	if p.Root != RootSkill && p.Root != RootWorkspace {
		return fmt.Errorf("invalid path: unknown root %s", p.Root)
	}
	q, err := ParsePath(p.String())
	if err != nil {
		return err
	}
	if q != p {
		return fmt.Errorf("invalid path %q: sub-path must not end in a slash", p.String())
	}
	return nil
}
