package pydeps

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Version is a PEP 440 version. Indexes list every file ever uploaded,
// so choosing "the newest that satisfies" needs PEP 440's ordering, not
// string order: 1.10 > 1.9, 1.0rc1 < 1.0 < 1.0.post1, 1.0.dev0 < 1.0a1.
type Version struct {
	Epoch   int
	Release []int
	// PreKind is "a", "b" or "rc" ("" for none), PreNum its number.
	PreKind string
	PreNum  int
	Post    int // -1: none
	Dev     int // -1: none
	Local   string
	raw     string
}

// versionRE is PEP 440's appendix B pattern (as the packaging library
// uses it), matched case-insensitively against the whole trimmed string.
var versionRE = lazyRegexp(`(?i)^v?` +
	`(?:(?P<epoch>[0-9]+)!)?` +
	`(?P<release>[0-9]+(?:\.[0-9]+)*)` +
	`(?P<pre>[-_.]?(?P<pre_l>alpha|beta|preview|pre|a|b|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?` +
	`(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?` +
	`(?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?` +
	`(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`)

// ParseVersion parses a PEP 440 version in any of its accepted
// spellings ("1.0-RC1", "v2", "1!2.0.post3.dev4+local.7").
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	m := versionRE().FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("invalid version %q", s)
	}
	g := func(name string) string { return m[versionRE().SubexpIndex(name)] }
	num := func(name string) (int, error) {
		t := g(name)
		if t == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(t)
		if err != nil {
			return 0, fmt.Errorf("invalid version %q: number %s out of range", s, t)
		}
		return n, nil
	}
	v := Version{Post: -1, Dev: -1, raw: s}
	var err error
	if v.Epoch, err = num("epoch"); err != nil {
		return Version{}, err
	}
	for part := range strings.SplitSeq(g("release"), ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return Version{}, fmt.Errorf("invalid version %q: number %s out of range", s, part)
		}
		v.Release = append(v.Release, n)
	}
	if g("pre") != "" {
		switch strings.ToLower(g("pre_l")) {
		case "a", "alpha":
			v.PreKind = "a"
		case "b", "beta":
			v.PreKind = "b"
		default: // c, rc, pre, preview
			v.PreKind = "rc"
		}
		if v.PreNum, err = num("pre_n"); err != nil {
			return Version{}, err
		}
	}
	if g("post") != "" {
		name := "post_n2"
		if g("post_n1") != "" {
			name = "post_n1"
		}
		if v.Post, err = num(name); err != nil {
			return Version{}, err
		}
	}
	if g("dev") != "" {
		if v.Dev, err = num("dev_n"); err != nil {
			return Version{}, err
		}
	}
	v.Local = strings.ToLower(strings.NewReplacer("-", ".", "_", ".").Replace(g("local")))
	return v, nil
}

// String returns the version as it was written.
func (v Version) String() string { return v.raw }

// IsPrerelease reports whether v is a pre- or development release, which
// resolution only picks when asked for (see [selectVersion]).
func (v Version) IsPrerelease() bool { return v.PreKind != "" || v.Dev >= 0 }

// public returns v without its local label.
func (v Version) public() Version {
	v.Local = ""
	return v
}

// base returns v's epoch and release only.
func (v Version) base() Version {
	return Version{Epoch: v.Epoch, Release: v.Release, Post: -1, Dev: -1}
}

// trimmedRelease drops trailing zeros, so that 1.0 == 1.0.0.
func trimmedRelease(r []int) []int {
	for len(r) > 1 && r[len(r)-1] == 0 {
		r = r[:len(r)-1]
	}
	return r
}

// preRank orders the pre-release part: a dev release of a final version
// comes before its pre-releases, and a final version after them.
func (v Version) preRank() (int, int) {
	switch {
	case v.PreKind == "" && v.Post < 0 && v.Dev >= 0:
		return -1, 0
	case v.PreKind == "":
		return 3, 0
	case v.PreKind == "a":
		return 0, v.PreNum
	case v.PreKind == "b":
		return 1, v.PreNum
	}
	return 2, v.PreNum
}

// Compare orders versions by PEP 440: -1 if v < w, 0 if equal, +1 if v > w.
func (v Version) Compare(w Version) int {
	if c := cmp.Compare(v.Epoch, w.Epoch); c != 0 {
		return c
	}
	if c := slices.Compare(trimmedRelease(v.Release), trimmedRelease(w.Release)); c != 0 {
		return c
	}
	vk, vn := v.preRank()
	wk, wn := w.preRank()
	if c := cmp.Or(cmp.Compare(vk, wk), cmp.Compare(vn, wn)); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Post, w.Post); c != 0 {
		return c
	}
	// No dev part sorts after any dev part.
	vd, wd := v.Dev, w.Dev
	if vd < 0 {
		vd = int(^uint(0) >> 1)
	}
	if wd < 0 {
		wd = int(^uint(0) >> 1)
	}
	if c := cmp.Compare(vd, wd); c != 0 {
		return c
	}
	return compareLocal(v.Local, w.Local)
}

// compareLocal orders local labels: none first, then segment by segment,
// numbers after strings and numerically among themselves.
func compareLocal(a, b string) int {
	if a == "" || b == "" {
		return cmp.Compare(len(a), len(b))
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(as), len(bs)) {
		an, aerr := strconv.Atoi(as[i])
		bn, berr := strconv.Atoi(bs[i])
		var c int
		switch {
		case aerr == nil && berr == nil:
			c = cmp.Compare(an, bn)
		case aerr == nil:
			c = 1
		case berr == nil:
			c = -1
		default:
			c = strings.Compare(as[i], bs[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// A clause is one comparison of a version specifier, e.g. ">=6.0".
type clause struct {
	op       string // == != < <= > >= ~= ===
	version  Version
	raw      string // the version as written (for === and messages)
	wildcard bool   // ==X.* or !=X.*
}

func (c clause) String() string {
	if c.wildcard {
		return c.op + c.raw + ".*"
	}
	return c.op + c.raw
}

// A Specifier is a PEP 440 version specifier: comma-separated clauses
// that must all hold.
type Specifier []clause

var specOps = []string{"===", "==", "!=", "<=", ">=", "~=", "<", ">"}

// ParseSpecifier parses a comma-separated version specifier such as
// ">=6.0, <7" or "==1.4.*". The empty string matches any version.
func ParseSpecifier(s string) (Specifier, error) {
	var spec Specifier
	if strings.TrimSpace(s) == "" {
		return spec, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		op := ""
		for _, o := range specOps {
			if strings.HasPrefix(part, o) {
				op = o
				break
			}
		}
		if op == "" {
			return nil, fmt.Errorf("invalid version specifier %q: %q has no operator (one of == != < <= > >= ~= ===)", s, part)
		}
		raw := strings.TrimSpace(part[len(op):])
		c := clause{op: op, raw: raw}
		if op == "===" {
			if raw == "" {
				return nil, fmt.Errorf("invalid version specifier %q: === needs a value", s)
			}
			spec = append(spec, c)
			continue
		}
		if base, ok := strings.CutSuffix(raw, ".*"); ok {
			if op != "==" && op != "!=" {
				return nil, fmt.Errorf("invalid version specifier %q: .* only goes with == and !=", s)
			}
			c.wildcard, c.raw = true, base
		}
		v, err := ParseVersion(c.raw)
		if err != nil {
			return nil, fmt.Errorf("invalid version specifier %q: %w", s, err)
		}
		if c.wildcard && (v.PreKind != "" || v.Post >= 0 || v.Dev >= 0 || v.Local != "") {
			return nil, fmt.Errorf("invalid version specifier %q: .* follows a release number only", s)
		}
		if op == "~=" && len(v.Release) < 2 {
			return nil, fmt.Errorf("invalid version specifier %q: ~= needs at least two release numbers", s)
		}
		if v.Local != "" && op != "==" && op != "!=" {
			return nil, fmt.Errorf("invalid version specifier %q: a local version only goes with == and !=", s)
		}
		c.version = v
		spec = append(spec, c)
	}
	return spec, nil
}

// String joins the clauses with commas, without spaces.
func (s Specifier) String() string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}

// Contains reports whether v satisfies every clause.
func (s Specifier) Contains(v Version) bool {
	for _, c := range s {
		if !c.contains(v) {
			return false
		}
	}
	return true
}

// pinned reports whether the specifier names one exact version (== or
// ===, no wildcard): only then may a yanked file be chosen (PEP 592).
func (s Specifier) pinned() bool {
	for _, c := range s {
		if (c.op == "==" && !c.wildcard) || c.op == "===" {
			return true
		}
	}
	return false
}

// allowsPrereleases reports whether a clause names a pre-release, which
// PEP 440 takes as asking for pre-releases.
func (s Specifier) allowsPrereleases() bool {
	for _, c := range s {
		if c.op != "!=" && c.op != "===" && c.version.IsPrerelease() {
			return true
		}
	}
	return false
}

// prefixMatch reports whether v's release starts with prefix (v padded
// with zeros), within the same epoch: the meaning of ==prefix.*.
func prefixMatch(v Version, prefix Version) bool {
	if v.Epoch != prefix.Epoch {
		return false
	}
	for i, n := range prefix.Release {
		m := 0
		if i < len(v.Release) {
			m = v.Release[i]
		}
		if m != n {
			return false
		}
	}
	return true
}

func (c clause) contains(v Version) bool {
	switch c.op {
	case "===":
		return strings.EqualFold(v.raw, c.raw)
	case "==", "!=":
		var eq bool
		switch {
		case c.wildcard:
			eq = prefixMatch(v.public(), c.version)
		case c.version.Local == "":
			eq = v.public().Compare(c.version) == 0
		default:
			eq = v.Compare(c.version) == 0
		}
		return eq == (c.op == "==")
	case "~=":
		prefix := Version{Epoch: c.version.Epoch, Release: c.version.Release[:len(c.version.Release)-1]}
		return v.public().Compare(c.version) >= 0 && prefixMatch(v, prefix)
	case "<=":
		return v.public().Compare(c.version) <= 0
	case ">=":
		return v.public().Compare(c.version) >= 0
	case "<":
		if v.public().Compare(c.version) >= 0 {
			return false
		}
		// <3.0 does not admit 3.0rc1 (unless it names a pre-release).
		return c.version.IsPrerelease() || !v.IsPrerelease() || v.base().Compare(c.version.base()) != 0
	case ">":
		if v.public().Compare(c.version) <= 0 {
			return false
		}
		// >1.0 does not admit 1.0.post1 (unless it names a post-release),
		// nor 1.0+local.
		if c.version.Post < 0 && v.Post >= 0 && v.base().Compare(c.version.base()) == 0 {
			return false
		}
		return v.Local == "" || v.base().Compare(c.version.base()) != 0
	}
	return false
}
