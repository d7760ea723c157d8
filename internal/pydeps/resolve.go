package pydeps

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultIndexURL is PyPI's simple index.
const DefaultIndexURL = "https://pypi.org/simple"

// NoIndex as Options.IndexURL makes FindLinks the only source.
const NoIndex = "none"

// maxChoices bounds how often one project's chosen version may change
// while constraints arrive, so that conflicting ranges end in an error
// rather than a loop.
const maxChoices = 16

// Options configure Resolve.
type Options struct {
	IndexURL  string       // a PEP 503 simple index base, e.g. https://pypi.org/simple (default; honour PIP_INDEX_URL when IndexURL is "")
	FindLinks string       // a local folder of .whl files, searched before the index (and the only source if IndexURL is "none")
	Client    *http.Client // nil: a client with a 60 s timeout
	CacheDir  string       // where verified wheels and unpacked trees live; "" = <os.UserCacheDir()>/skillrun/pydeps
	Progress  io.Writer    // one line per download (nil: none)
	// Refresh ignores the remembered resolution of the same requirements
	// (see [Resolve]) and asks the index again; wheels already in the
	// cache are still reused when the index gives the same hash.
	Refresh bool
	// Provided are the packages the interpreter has built in (skillrun's
	// WASI CPython links compiled packages such as Pillow and lxml, whose
	// wheels could not load in WebAssembly). A requirement naming one,
	// the caller's or a wheel's dependency, is satisfied by it: it is
	// never fetched and adds no wheel to the site, and [Site.Provided]
	// lists it. A specifier that excludes the built-in version does not
	// fail the resolution, since the built-in copy is the only one that
	// can load: Progress gets a warning naming who asked. The list is
	// part of the key of a remembered resolution, so that an interpreter
	// with other versions resolves anew.
	Provided []Provided
}

// withDefaults fills in the documented defaults.
func (o *Options) withDefaults() (Options, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.IndexURL == "" {
		opts.IndexURL = cmp.Or(os.Getenv("PIP_INDEX_URL"), DefaultIndexURL)
	}
	if opts.FindLinks != "" {
		abs, err := filepath.Abs(opts.FindLinks)
		if err != nil {
			return opts, err
		}
		opts.FindLinks = abs
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 60 * time.Second}
	}
	if opts.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return opts, fmt.Errorf("no cache folder: %w", err)
		}
		opts.CacheDir = filepath.Join(dir, "skillrun", "pydeps")
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	return opts, nil
}

// Resolve resolves the requirements and their dependencies breadth-first,
// choosing for each project the newest version that has a pure-Python
// wheel and satisfies every specifier seen for it; fetches the wheels
// (from FindLinks first, then the index), verifies them against the
// index's sha256, checks the archives, and unpacks them into one
// content-addressed site folder (see [Site]).
//
// A requirement that names a package of Options.Provided is met by the
// interpreter and fetches nothing; with the index "none" and no
// find-links folder, only such requirements resolve.
//
// A resolution is remembered under CacheDir keyed by the requirements,
// the sources and the provided packages, so that running the same skill
// again needs no network; Options.Refresh asks anew.
func Resolve(ctx context.Context, reqs []Requirement, o *Options) (*Site, error) {
	opts, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &cache{dir: opts.CacheDir}
	key, err := lockKey(reqs, &opts)
	if err != nil {
		return nil, err
	}
	if !opts.Refresh {
		if wheels, ok := c.loadLock(key); ok {
			if site, err := c.site(wheels); err == nil {
				site.Provided = providedUse(opts.Progress, opts.Provided, reqs, wheels)
				return site, nil
			}
		}
	}
	r := &resolver{ctx: ctx, opts: &opts, cache: c, projects: map[string]*project{}}
	wheels, err := r.run(reqs)
	if err != nil {
		return nil, err
	}
	site, err := c.site(wheels)
	if err != nil {
		return nil, err
	}
	if err := c.saveLock(key, wheels); err != nil {
		return nil, err
	}
	site.Provided = providedUse(opts.Progress, opts.Provided, reqs, wheels)
	return site, nil
}

// A project is the resolver's state for one normalized name.
type project struct {
	name      string          // normalized
	specs     []Specifier     // every specifier seen
	extras    map[string]bool // normalized extras asked for
	files     []distFile      // from the index, once fetched
	chosen    *cachedWheel    // current choice
	requires  []Requirement   // chosen wheel's Requires-Dist, parsed
	changes   int
	requester string // who first asked, for messages: "" for the caller
	// builtin is set when the interpreter provides the project
	// (Options.Provided): it is never chosen nor fetched.
	builtin bool
}

// A pending requirement waits in the resolver's queue.
type pending struct {
	req Requirement
	by  string // "openpyxl 3.0.9" when a wheel asked for it
}

type resolver struct {
	ctx      context.Context
	opts     *Options
	cache    *cache
	projects map[string]*project
	queue    []pending
	local    []distFile // the find-links folder, listed once
	listed   bool
}

func (r *resolver) run(reqs []Requirement) ([]cachedWheel, error) {
	var roots []string
	for _, req := range reqs {
		ok, err := req.applies("")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cmp.Or(req.Source, req.Name), err)
		}
		if ok {
			r.queue = append(r.queue, pending{req: req})
			roots = append(roots, Normalize(req.Name))
		}
	}
	for len(r.queue) > 0 {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		p := r.queue[0]
		r.queue = r.queue[1:]
		if err := r.step(p); err != nil {
			if p.by != "" {
				return nil, fmt.Errorf("%w (required by %s)", err, p.by)
			}
			return nil, err
		}
	}
	// Keep what the final choices reach: a dependency of a version that a
	// later constraint replaced is not needed any more.
	var out []cachedWheel
	seen := map[string]bool{}
	for todo := roots; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		p := r.projects[name]
		if p.builtin {
			continue // the interpreter's; its version is warned about in providedUse
		}
		w := *p.chosen
		w.Requires = p.applying()
		out = append(out, w)
		for _, line := range w.Requires {
			dep, _ := ParseRequirement(line)
			todo = append(todo, Normalize(dep.Name))
		}
	}
	slices.SortFunc(out, func(a, b cachedWheel) int { return strings.Compare(Normalize(a.Name), Normalize(b.Name)) })
	return out, nil
}

// step applies one requirement: it adds its constraint and extras, and
// chooses (again) when the current choice no longer fits.
func (r *resolver) step(pd pending) error {
	req := pd.req
	name := Normalize(req.Name)
	spec, err := ParseSpecifier(req.Specifier)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	p := r.projects[name]
	if p == nil {
		_, builtin := providedFor(r.opts.Provided, name)
		p = &project{name: name, extras: map[string]bool{}, requester: pd.by, builtin: builtin}
		r.projects[name] = p
	}
	if p.builtin {
		return nil // satisfied by the interpreter, whatever the specifier says
	}
	if len(spec) > 0 {
		p.specs = append(p.specs, spec)
	}
	var newExtras []string
	for _, e := range req.Extras {
		if e = Normalize(e); !p.extras[e] {
			p.extras[e] = true
			newExtras = append(newExtras, e)
		}
	}
	if p.chosen != nil && p.satisfied(p.chosen.version) {
		for _, e := range newExtras {
			r.queue = append(r.queue, p.depsFor(e)...)
		}
		return nil
	}
	if p.changes++; p.changes > maxChoices {
		return fmt.Errorf("%s: the requirements keep changing its version (%s); pin one", name, p.specString())
	}
	w, err := r.choose(p)
	if err != nil {
		return err
	}
	p.chosen = w
	p.requires = nil
	by := name + " " + w.Version
	for _, line := range w.meta.requiresDist {
		dep, err := ParseRequirement(line)
		if err == nil {
			_, err = dep.applies("")
		}
		if err != nil {
			return fmt.Errorf("%s: METADATA: %w", by, err)
		}
		dep.Source = by
		p.requires = append(p.requires, dep)
	}
	r.queue = append(r.queue, p.depsFor("")...)
	for e := range p.extras {
		r.queue = append(r.queue, p.depsFor(e)...)
	}
	return nil
}

// depsFor returns the chosen wheel's dependencies that apply to the base
// install (extra "") or to one extra only.
func (p *project) depsFor(extra string) []pending {
	var out []pending
	for _, i := range p.applyingTo(extra) {
		out = append(out, pending{req: p.requires[i], by: p.requires[i].Source})
	}
	return out
}

// applyingTo returns the indexes in p.requires of the lines that apply to
// the base install (extra "") or to one extra only. Markers were checked
// for syntax when the wheel was chosen.
func (p *project) applyingTo(extra string) []int {
	var out []int
	for i, dep := range p.requires {
		base, _ := dep.applies("")
		if extra == "" && base {
			out = append(out, i)
		} else if extra != "" && !base {
			if ok, _ := dep.applies(extra); ok {
				out = append(out, i)
			}
		}
	}
	return out
}

// applying returns the chosen wheel's Requires-Dist lines that apply,
// as the wheel wrote them.
func (p *project) applying() []string {
	var out []string
	for _, e := range append([]string{""}, slices.Sorted(maps.Keys(p.extras))...) {
		for _, i := range p.applyingTo(e) {
			out = append(out, p.chosen.meta.requiresDist[i])
		}
	}
	return out
}

func (p *project) satisfied(v Version) bool {
	for _, s := range p.specs {
		if !s.Contains(v) {
			return false
		}
	}
	return true
}

func (p *project) specString() string {
	parts := make([]string, len(p.specs))
	for i, s := range p.specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// choose picks and fetches the newest fitting wheel: from find-links
// when one there fits, else from the index.
func (r *resolver) choose(p *project) (*cachedWheel, error) {
	w, err := r.chooseFrom(p)
	var ce *compiledError
	if errors.As(err, &ce) {
		return nil, fmt.Errorf("%w; %s", err, compiledHint(p.name, r.opts.Provided))
	}
	return w, err
}

func (r *resolver) chooseFrom(p *project) (*cachedWheel, error) {
	if r.opts.IndexURL == NoIndex && r.opts.FindLinks == "" {
		return nil, fmt.Errorf("%s: no package source: the index is \"none\" and no find-links folder is given", p.name)
	}
	var localErr error
	if r.opts.FindLinks != "" {
		if !r.listed {
			files, err := findLinks(r.opts.FindLinks)
			if err != nil {
				return nil, err
			}
			r.local, r.listed = files, true
		}
		f, v, err := p.selectFile(r.local, "find-links "+r.opts.FindLinks)
		if err == nil {
			return r.cache.fetch(r.ctx, r.opts, p.name, f, v)
		}
		localErr = err
	}
	if r.opts.IndexURL == NoIndex {
		return nil, localErr
	}
	if p.files == nil {
		files, err := fetchProject(r.ctx, r.opts.Client, r.opts.IndexURL, p.name)
		if err != nil {
			return nil, redactErr(err)
		}
		p.files = files
	}
	f, v, err := p.selectFile(p.files, redact(r.opts.IndexURL))
	if err != nil {
		return nil, err
	}
	return r.cache.fetch(r.ctx, r.opts, p.name, f, v)
}

// A release groups a version's files.
type release struct {
	version  Version
	pure     []distFile
	compiled []string
	sdists   []string
}

// selectFile returns the file of the newest version that satisfies every
// specifier and has a usable pure-Python wheel. Pre-releases count only
// when a specifier names one or no final release fits (PEP 440); yanked
// files only when pinned with == (PEP 592).
func (p *project) selectFile(files []distFile, source string) (distFile, Version, error) {
	byVersion := map[string]*release{}
	var releases []*release
	for _, f := range files {
		var ver string
		wn, isWheel := parseWheelName(f.Filename)
		switch {
		case isWheel && Normalize(wn.name) == p.name:
			ver = wn.version
		case !isWheel && isSdist(f.Filename):
			ver = sdistVersion(f.Filename, p.name)
		}
		v, err := ParseVersion(ver)
		if ver == "" || err != nil {
			continue
		}
		key := fmt.Sprint(v.public().Epoch, trimmedRelease(v.Release), v.PreKind, v.PreNum, v.Post, v.Dev, v.Local)
		rel := byVersion[key]
		if rel == nil {
			rel = &release{version: v}
			byVersion[key] = rel
			releases = append(releases, rel)
		}
		switch {
		case isWheel && wn.pure():
			rel.pure = append(rel.pure, f)
		case isWheel:
			rel.compiled = append(rel.compiled, f.Filename)
		default:
			rel.sdists = append(rel.sdists, f.Filename)
		}
	}
	if len(releases) == 0 {
		if len(files) == 0 || strings.HasPrefix(source, "find-links") {
			return distFile{}, Version{}, fmt.Errorf("%s: not found in %s", p.name, source)
		}
		return distFile{}, Version{}, fmt.Errorf("%s: %s lists no wheels or source distributions of it", p.name, source)
	}
	slices.SortFunc(releases, func(a, b *release) int { return b.version.Compare(a.version) })
	pinned, allowPre := false, false
	for _, s := range p.specs {
		pinned = pinned || s.pinned()
		allowPre = allowPre || s.allowsPrereleases()
	}
	var fitting []*release
	for _, rel := range releases {
		if p.satisfied(rel.version) {
			fitting = append(fitting, rel)
		}
	}
	if len(fitting) == 0 {
		return distFile{}, Version{}, fmt.Errorf("no version of %s satisfies %s (available: %s)", p.name, p.specString(), available(releases))
	}
	usable := func(f distFile) bool {
		if f.Yanked && !pinned {
			return false
		}
		if f.RequiresPython != "" {
			if s, err := ParseSpecifier(f.RequiresPython); err == nil && !s.Contains(interpreterVersion()) {
				return false
			}
		}
		return true
	}
	for _, pre := range []bool{false, true} {
		for _, rel := range fitting {
			if rel.version.IsPrerelease() && !pre && !allowPre {
				continue
			}
			for _, f := range rel.pure {
				if usable(f) {
					return f, rel.version, nil
				}
			}
		}
	}
	return distFile{}, Version{}, p.noWheelError(fitting, source)
}

// noWheelError explains why no fitting version had a usable wheel,
// from the newest fitting version's files.
func (p *project) noWheelError(fitting []*release, source string) error {
	for _, rel := range fitting {
		if len(rel.pure) > 0 {
			f := rel.pure[0]
			if f.Yanked {
				return fmt.Errorf("%s %s: yanked from %s (pin it with == to use it anyway)", p.name, rel.version, source)
			}
			return fmt.Errorf("%s %s: requires Python %s; skillrun runs %s", p.name, rel.version, f.RequiresPython, interpreterVersion())
		}
	}
	var compiled, sdists []string
	for _, rel := range fitting {
		compiled = append(compiled, rel.compiled...)
		sdists = append(sdists, rel.sdists...)
		if len(compiled)+len(sdists) > 0 {
			break // the newest version with files says enough
		}
	}
	const why = "skillrun runs Python in WebAssembly, where compiled extensions cannot load"
	switch {
	case len(compiled) > 0 && len(sdists) > 0:
		return &compiledError{fmt.Errorf("%s: no pure-Python wheel (the index has only compiled wheels and source distributions: %s; %s, and it does not build packages from source)", p.name, listSome(append(compiled, sdists...)), why)}
	case len(compiled) > 0:
		return &compiledError{fmt.Errorf("%s: no pure-Python wheel (the index has only compiled wheels: %s; %s)", p.name, listSome(compiled), why)}
	case len(sdists) > 0:
		return fmt.Errorf("%s: no pure-Python wheel (the index has only source distributions: %s; skillrun does not build packages from source)", p.name, listSome(sdists))
	}
	return fmt.Errorf("%s: no pure-Python wheel in %s", p.name, source)
}

// listSome lists up to three names and counts the rest.
func listSome(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// available lists versions oldest first, the newest 15 at most.
func available(releases []*release) string {
	var vs []string
	for i := len(releases) - 1; i >= 0; i-- {
		vs = append(vs, releases[i].version.String())
	}
	if len(vs) > 15 {
		return "..., " + strings.Join(vs[len(vs)-15:], ", ")
	}
	return strings.Join(vs, ", ")
}

// sdistVersion takes the version from "{name}-{version}.tar.gz", where
// the name may be spelled in any normalization.
func sdistVersion(file, name string) string {
	for _, ext := range []string{".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar.xz"} {
		if base, ok := strings.CutSuffix(file, ext); ok {
			i := strings.LastIndexByte(base, '-')
			if i < 0 || Normalize(base[:i]) != name {
				return ""
			}
			return base[i+1:]
		}
	}
	return ""
}
