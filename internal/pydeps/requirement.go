package pydeps

import (
	"fmt"
	"regexp"
	"strings"
)

// A Requirement is one PEP 508 requirement (name, version specifier,
// environment marker).
type Requirement struct {
	Name      string // as written
	Specifier string // e.g. ">=6.0,<7" ("" for any)
	Marker    string // e.g. `python_version >= "3.8"` ("" for none)
	Extras    []string
	Source    string // where it came from: "scripts/x.py:3 (PEP 723)", "requirements.txt:2", "scripts/y.py imports yaml"
}

// String renders the requirement in PEP 508 form.
func (r Requirement) String() string {
	var b strings.Builder
	b.WriteString(r.Name)
	if len(r.Extras) > 0 {
		b.WriteString("[" + strings.Join(r.Extras, ",") + "]")
	}
	b.WriteString(r.Specifier)
	if r.Marker != "" {
		b.WriteString("; " + r.Marker)
	}
	return b.String()
}

var normalizeRE = regexp.MustCompile(`[-_.]+`)

// Normalize returns the PEP 503 normalized name (lowercase, runs of -_.
// become -): the one key under which an index and the resolver know a
// project, however a requirement spells it (PyYAML, pyyaml, py_yaml).
func Normalize(name string) string {
	return strings.ToLower(normalizeRE.ReplaceAllString(name, "-"))
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?`)

// ParseRequirement parses one PEP 508 line (no URLs needed; name[extras]
// specifiers ; marker). The specifier is returned without spaces, in
// parentheses or not as written; the marker is checked for syntax.
func ParseRequirement(s string) (Requirement, error) {
	orig := s
	s = strings.TrimSpace(s)
	name := nameRE.FindString(s)
	if name == "" {
		return Requirement{}, fmt.Errorf("invalid requirement %q: it must start with a project name", orig)
	}
	r := Requirement{Name: name}
	rest := strings.TrimSpace(s[len(name):])
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return Requirement{}, fmt.Errorf("invalid requirement %q: missing ] after the extras", orig)
		}
		for e := range strings.SplitSeq(rest[1:end], ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			if nameRE.FindString(e) != e {
				return Requirement{}, fmt.Errorf("invalid requirement %q: invalid extra %q", orig, e)
			}
			r.Extras = append(r.Extras, e)
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	spec, marker, hasMarker := strings.Cut(rest, ";")
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "@") {
		return Requirement{}, fmt.Errorf("invalid requirement %q: URL requirements are not supported; name a version from the index instead", orig)
	}
	if strings.HasPrefix(spec, "(") {
		if !strings.HasSuffix(spec, ")") {
			return Requirement{}, fmt.Errorf("invalid requirement %q: missing ) after the version specifier", orig)
		}
		spec = spec[1 : len(spec)-1]
	}
	if spec != "" {
		parsed, err := ParseSpecifier(spec)
		if err != nil {
			return Requirement{}, fmt.Errorf("invalid requirement %q: %w", orig, err)
		}
		r.Specifier = parsed.String()
	}
	if hasMarker {
		r.Marker = strings.TrimSpace(marker)
		if _, err := parseMarker(r.Marker); err != nil {
			return Requirement{}, fmt.Errorf("invalid requirement %q: %w", orig, err)
		}
	}
	return r, nil
}

// applies reports whether the requirement's marker holds on skillrun's
// interpreter (for the given extra).
func (r Requirement) applies(extra string) (bool, error) {
	return EvalMarker(r.Marker, extra)
}
