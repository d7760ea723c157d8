package pydeps

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/internal/termsafe"
)

// A Provided package is one the interpreter has built in: a compiled
// package linked into skillrun's WASI CPython (its extension modules are
// built-ins of python.wasm, its Python files in the standard library's
// mount). No wheel could bring it, since a wheel's compiled extensions
// cannot load in WebAssembly, and none needs to: every script can import
// it already. See [Options.Provided].
type Provided struct {
	Name    string `json:"name"`             // the distribution, as requirements name it: "Pillow"
	Version string `json:"version"`          // the version built in: "9.4.0"
	Import  string `json:"import,omitempty"` // its top-level module: "PIL"
}

// String is "Pillow 9.4.0".
func (p Provided) String() string { return p.Name + " " + p.Version }

// providedFor returns the provided package a requirement names, by
// normalized name.
func providedFor(list []Provided, name string) (Provided, bool) {
	n := Normalize(name)
	for _, p := range list {
		if Normalize(p.Name) == n {
			return p, true
		}
	}
	return Provided{}, false
}

// UseProvided turns the unknown imports that a provided package's
// top-level module names into requirements of that package (sourced
// "scripts/x.py:3 imports PIL", as a known import is), so that they
// resolve to the interpreter's copy like the packages the table of known
// imports maps (import PIL is Pillow already): a built-in package that
// the table does not list is then not reported as an unknown import.
func (n *Need) UseProvided(provided []Provided) {
	var unknown []Import
	for _, im := range n.Unknown {
		i := slices.IndexFunc(provided, func(p Provided) bool { return p.Import != "" && p.Import == im.Module })
		if i < 0 {
			unknown = append(unknown, im)
			continue
		}
		name := Normalize(provided[i].Name)
		if !slices.ContainsFunc(n.Requirements, func(r Requirement) bool { return Normalize(r.Name) == name }) {
			n.Requirements = append(n.Requirements, Requirement{Name: provided[i].Name, Source: im.Where + " imports " + im.Module})
		}
	}
	n.Unknown = unknown
}

// providedUse returns the provided packages that a resolution uses (that
// the requirements, or the chosen wheels' dependencies, name), sorted by
// name, and warns on w about each requirement whose specifier excludes
// the built-in version, or that asks for extras, whose dependencies are
// not fetched. It reads the wheels' recorded Requires, so that a
// remembered resolution warns as the first one did.
func providedUse(w io.Writer, provided []Provided, reqs []Requirement, wheels []cachedWheel) []Provided {
	used := []Provided{}
	check := func(r Requirement, who string) {
		p, ok := providedFor(provided, r.Name)
		if !ok {
			return
		}
		if !slices.Contains(used, p) {
			used = append(used, p)
		}
		warnProvided(w, p, r, who)
	}
	for _, r := range reqs {
		if ok, _ := r.applies(""); ok {
			check(r, r.Source)
		}
	}
	for _, wh := range wheels {
		// Requires holds the lines that apply (markers and extras were
		// evaluated when the wheel was chosen).
		for _, line := range wh.Requires {
			if dep, err := ParseRequirement(line); err == nil {
				check(dep, wh.Name+" "+wh.Version)
			}
		}
	}
	slices.SortFunc(used, func(a, b Provided) int { return strings.Compare(Normalize(a.Name), Normalize(b.Name)) })
	return used
}

// warnProvided writes the warning for a requirement that the built-in
// package does not quite meet: the interpreter's copy is used anyway,
// since it is the only one that can load (and the one an import finds).
func warnProvided(w io.Writer, p Provided, r Requirement, who string) {
	excluded := false
	if spec, err := ParseSpecifier(r.Specifier); err == nil {
		if v, err := ParseVersion(p.Version); err == nil && !spec.Contains(v) {
			excluded = true
		}
	}
	if !excluded && len(r.Extras) == 0 {
		return
	}
	asked := r.Name
	if len(r.Extras) > 0 {
		asked += "[" + strings.Join(r.Extras, ",") + "]"
	}
	asked += r.Specifier
	msg := fmt.Sprintf("skillrun: %s asks for %s; the sandbox's Python provides %s (built in), which is used",
		cmp.Or(who, "a requirement"), asked, p)
	if len(r.Extras) > 0 {
		msg += fmt.Sprintf(", and the dependencies of its extras (%s) are not fetched: declare them if the scripts need them", strings.Join(r.Extras, ", "))
	}
	fmt.Fprintln(w, termsafe.String(msg))
}

// compiledError is a package that offers only compiled code (wheels
// with an ABI or a platform, or native members): the resolver adds to it
// what the interpreter has built in and where such a package can run.
type compiledError struct{ err error }

func (e *compiledError) Error() string { return e.err.Error() }
func (e *compiledError) Unwrap() error { return e.err }

// compiledHint says, for a compiled package that is not built in, which
// compiled packages are, and that the native tier runs a trusted skill
// under the host's python3 with its own packages.
func compiledHint(name string, provided []Provided) string {
	var b strings.Builder
	if len(provided) == 0 {
		b.WriteString("skillrun's Python has no compiled packages built in")
	} else {
		names := make([]string, len(provided))
		for i, p := range provided {
			names[i] = p.String()
		}
		fmt.Fprintf(&b, "the compiled packages built into skillrun's Python are %s; %s is not one of them", JoinAnd(names), name)
	}
	fmt.Fprintf(&b, "; a skill you trust that needs %s can run in the native tier (skillrun run --native, or native = true in the skill's policy), as the host's python3 with the packages installed there", name)
	return b.String()
}

// JoinAnd joins "a", "a and b", "a, b and c".
func JoinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
