package capabilities

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/internal/tomlx"
)

// An Identity pins which skill a policy table is for. A name is what a
// skill's author (anyone) writes in SKILL.md; a location and a digest are
// what the operator chose and checked.
type Identity struct {
	// Path is the skill's folder (or .zip archive): absolute, as written
	// in the policy with "~/" meaning the user's home and a relative path
	// taken from the policy file's folder.
	Path string
	// Digest, when set, is the "sha256:HEX" digest of the skill's files
	// that `skillrun show --digest` prints: the table applies only while
	// the skill holds exactly those files.
	Digest string
}

// A SkillRef is what [Policy.Grant] needs to know of a skill in play.
type SkillRef struct {
	// Name is the name the skill claims in SKILL.md.
	Name string
	// Path is where the skill lives: its folder or .zip archive, absolute
	// with symbolic links resolved; "" for a skill with no place on disk.
	Path string
	// Folder is the name of the skill's folder (or the archive's name
	// without .zip), the name the specification says the skill's name
	// must match.
	Folder string
	// Rivals are the locations of the other skills in play that claim the
	// same name, compared after NFKC normalisation and case folding.
	Rivals []string
	// Digest computes the skill's content digest; it is called only when
	// the policy pins one. Nil means the skill cannot be pinned.
	Digest func() (string, error)
}

// errNotBound is wrapped by the errors of [Policy.Grant]: the policy has a
// table for the name a skill claims, and the table is not this skill's.
var errNotBound = errors.New("policy grant not applied")

// Grant returns what p grants the skill that ref describes, deciding
// which skill a table by name is for:
//
//   - a table pinned to a path (and digest) is the skill's when the
//     skill is at that path (and holds those files);
//   - a table without a path is the skill's when the skill's folder has
//     the skill's name and no other skill in play claims that name, so an
//     old policy keeps working wherever it is unambiguous.
//
// Otherwise the table applies to no skill that claims its name, the skill
// gets only [Policy.Default] (what every skill gets), and the error, which
// wraps [errNotBound], says why and how to pin the skill meant. A grant is
// never transferred to whichever skill claims a name first. A nil Policy
// grants nothing.
func (p *Policy) Grant(ref SkillRef) (Set, error) {
	if p == nil {
		return Set{}, nil
	}
	if _, ok := p.Skills[ref.Name]; !ok {
		return p.For(ref.Name), nil
	}
	if err := p.bound(ref); err != nil {
		return Merge(p.Default, Set{}), err
	}
	return p.For(ref.Name), nil
}

// bound reports why the table named ref.Name is not ref's skill's, or nil.
func (p *Policy) bound(ref SkillRef) error {
	table := fmt.Sprintf("[skills.%q]", ref.Name)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: policy %s is not given to the skill at %q: %s", errNotBound, table, ref.Path, fmt.Sprintf(format, args...))
	}
	if id, ok := p.Identities[ref.Name]; ok && id.Path != "" {
		if ref.Path == "" || canonPath(id.Path) != canonPath(ref.Path) {
			return fail("the policy pins it to path %q; only [default] applies to this skill", id.Path)
		}
		if id.Digest == "" {
			return nil
		}
		if ref.Digest == nil {
			return fail("the policy pins its digest and this skill has none")
		}
		got, err := ref.Digest()
		if err != nil {
			return fail("computing its digest: %v", err)
		}
		if got != id.Digest {
			return fail("its files changed: digest %s, the policy pins %s; review the change, then update digest in the policy", got, id.Digest)
		}
		return nil
	}
	if len(ref.Rivals) > 0 {
		return fail("%d other skills claim the name %q (%s); pin the one meant with path = \"...\" in the policy",
			len(ref.Rivals), ref.Name, quoteAll(ref.Rivals))
	}
	if ref.Folder != ref.Name {
		return fail("its folder is named %q, not %q; to grant it, add path = %q to the table", ref.Folder, ref.Name, ref.Path)
	}
	return nil
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// canonPath makes p absolute and resolves its symbolic links, so a pinned
// path and a skill's location compare equal however either was written.
func canonPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// identity takes the path and digest keys out of a skill's table, if
// set, and returns them as an Identity; base is the policy file's folder.
func (d *policyDecoder) identity(children map[string]toml.Primitive, key toml.Key, base string) (Identity, bool) {
	var id Identity
	str := func(name string) (string, bool) {
		prim, ok := children[name]
		if !ok {
			return "", false
		}
		delete(children, name)
		sub := append(key[:len(key):len(key)], name)
		var v any
		if err := d.md.PrimitiveDecode(prim, &v); err != nil {
			d.add(sub, "%s: %v", sub, err)
			return "", false
		}
		s, ok := v.(string)
		if !ok {
			d.add(sub, "%s: expected a string, found %s", sub, tomlx.DescribeValue(v))
			return "", false
		}
		return s, true
	}
	path, hasPath := str("path")
	digest, hasDigest := str("digest")
	if hasPath {
		switch {
		case path == "" || strings.ContainsRune(path, 0):
			d.add(append(key[:len(key):len(key)], "path"), "%s.path: %q is not a path", key, path)
			hasPath = false
		case path == "~" || strings.HasPrefix(path, "~/"):
			home, err := os.UserHomeDir()
			if err != nil {
				d.add(append(key[:len(key):len(key)], "path"), "%s.path: %q: %v", key, path, err)
				hasPath = false
				break
			}
			path = filepath.Join(home, strings.TrimPrefix(path, "~"))
		case !filepath.IsAbs(path):
			path = filepath.Join(base, path)
		}
		id.Path = path
	}
	if hasDigest {
		if !digestRE.MatchString(digest) {
			d.add(append(key[:len(key):len(key)], "digest"), `%s.digest: %q is not a digest; copy it from "skillrun show --digest SKILL" (sha256: and 64 hex digits)`, key, digest)
		} else if !hasPath {
			d.add(append(key[:len(key):len(key)], "digest"), "%s.digest: a digest pins a skill only with its path; add path = \"...\"", key)
		} else {
			id.Digest = digest
		}
	}
	if id.Path != "" {
		if abs, err := filepath.Abs(id.Path); err == nil {
			id.Path = abs
		}
	}
	return id, id.Path != ""
}
