package skills

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/tomlx"
)

// maxManifestSize bounds skill.toml (untrusted input). Real manifests are a
// few KiB; the bound stops a hostile skill from making parsing expensive.
const maxManifestSize = 256 << 10

// A Manifest is a parsed skill.toml: the optional file beside SKILL.md that
// makes a skill runnable. It lists the skill's scripts, what each may touch
// (capabilities), their input/output schemas, and extra discovery words.
// The Agent Skills format has no place for these, and a sandbox needs them
// declared up front, before any code runs.
//
// A Manifest is plain data: safe for concurrent use when nobody modifies it.
type Manifest struct {
	// Version is the manifest format version; absent means 1, the only
	// version this skillrun reads.
	Version int `toml:"version" json:"version"`
	// Triggers are extra discovery words for tool and skill search.
	Triggers []string `toml:"triggers" json:"triggers,omitempty"`
	// Capabilities are the most any script of the skill asks for.
	Capabilities capabilities.Set `toml:"capabilities" json:"capabilities"`
	// Scripts are the runnable entries, by name (the TOML table key).
	Scripts map[string]*Script `toml:"scripts" json:"scripts,omitempty"`
}

// A ScriptKind says how a [Script] runs.
type ScriptKind string

const (
	// KindWASI is a WASI preview1 command module (module = "..."), run like
	// a program: args, stdin, stdout, exit code.
	KindWASI ScriptKind = "wasi"
	// KindExtism is an Extism plugin (plugin = "..."), called by export
	// name with bytes in and out.
	KindExtism ScriptKind = "extism"
	// KindSource is a script file (source = "...") run by an interpreter
	// module that skillrun ships.
	KindSource ScriptKind = "source"
)

// defaultExport is the export called on an Extism plugin that names none.
const defaultExport = "run"

// A Script is one runnable entry of a skill: a [scripts.NAME] table.
// Exactly one of Module, Plugin and Source is set; Kind says which.
type Script struct {
	// Name is the table key. It becomes a tool name, so it is restricted
	// to lowercase letters, digits, '_' and '-'.
	Name string `toml:"-" json:"name"`
	// Kind is derived from which of Module, Plugin and Source is set.
	Kind ScriptKind `toml:"-" json:"kind"`

	Description string `toml:"description" json:"description,omitempty"`
	// Module is the WASI module's path inside the skill folder.
	Module string `toml:"module" json:"module,omitempty"`
	// Plugin is the Extism plugin's path inside the skill folder.
	Plugin string `toml:"plugin" json:"plugin,omitempty"`
	// Export is the plugin function to call; "run" when unset.
	Export string `toml:"export" json:"export,omitempty"`
	// Source is the script file's path inside the skill folder.
	Source string `toml:"source" json:"source,omitempty"`
	// Language is the language of a file script found by
	// [Skill.FileScript] (LangPython, ...); "" means: told by Source's
	// extension.
	Language string `toml:"-" json:"language,omitempty"`
	// Build says how `skillrun build` makes Module or Plugin, if it can.
	Build *Build `toml:"build" json:"build,omitempty"`
	// InputSchema and OutputSchema are paths of JSON Schema files inside
	// the skill folder, describing the script as a tool.
	InputSchema  string `toml:"input_schema" json:"input_schema,omitempty"`
	OutputSchema string `toml:"output_schema" json:"output_schema,omitempty"`
	// Args are passed to the script before the caller's arguments.
	Args []string `toml:"args" json:"args,omitempty"`
	// Driver is Python code run in place of a Python Source, which it
	// gets as its first argument (python -c DRIVER SOURCE ARGS...): how
	// skillrun runs a file that is a module rather than a program, such
	// as a YAML module's wrapper.py. A loader sets it; skill.toml cannot.
	Driver string `toml:"-" json:"-"`
	// Deterministic runs the script with a fake clock and seeded
	// randomness (reproducible output) instead of the real clock and
	// crypto-grade randomness it gets by default.
	Deterministic bool `toml:"deterministic" json:"deterministic,omitempty"`
	// RequiredAgent, if set, is the only agent that may call the script
	// as a tool: "NAME" is this skill's own agent (agents/NAME.md),
	// "SKILL:NAME" another skill's, and "user:NAME" the operator's agent
	// NAME (from --agents, or the builtin one of that name). It binds to
	// the agent's identity, so another skill's agent of the same name is
	// refused (see [Script.RequiredAgentIdentity]).
	RequiredAgent string `toml:"required_agent" json:"required_agent,omitempty"`
	// Capabilities narrow or extend the skill-level set for this script.
	Capabilities capabilities.Set `toml:"capabilities" json:"capabilities,omitzero"`
}

// A Build says how to compile a script's module from sources in the skill.
type Build struct {
	// Lang is the source language: "go", "c" or "rust".
	Lang string `toml:"lang" json:"lang"`
	// Dir is the folder of the sources, relative to the skill folder.
	Dir string `toml:"dir" json:"dir"`
}

// buildLangs are the languages `skillrun build` knows how to compile.
var buildLangs = []string{"go", "c", "rust"}

// Manifest limits on lists that feed search and tool names.
const (
	maxTriggers   = 64
	maxTriggerLen = 64
)

var scriptNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// agentNamePattern is an agent's name (as agent definitions have it) and
// skillRefPattern a skill's, in a required_agent value.
var (
	agentNamePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	skillRefPattern  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// userAgentPrefix marks a required_agent naming the operator's agent.
const userAgentPrefix = "user:"

// RequiredAgentIdentity returns the identity of the agent the script
// requires, in the form agent definitions are identified by: the
// qualified "SKILL:NAME" for a skill's agent (skill is the script's own
// skill, for a bare NAME) and the bare "NAME" for the operator's agent
// ("user:NAME"); "" when the script requires none.
func (s *Script) RequiredAgentIdentity(skill string) string {
	r := s.RequiredAgent
	switch {
	case r == "":
		return ""
	case strings.HasPrefix(r, userAgentPrefix):
		return strings.TrimPrefix(r, userAgentPrefix)
	case strings.Contains(r, ":"):
		return r
	}
	return skill + ":" + r
}

// ScriptNames returns the names of the manifest's scripts, sorted.
func (m *Manifest) ScriptNames() []string {
	if m == nil {
		return nil
	}
	names := make([]string, 0, len(m.Scripts))
	for name := range m.Scripts {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// ParseManifest parses skill.toml strictly. file is the name used in
// problems (e.g. "pdf/skill.toml").
//
// It returns the manifest (nil when it cannot be decoded at all: too large,
// not UTF-8, nested absurdly deep, or not TOML) and every problem found,
// each an [Error] with the line of the key concerned when it can be
// located. Unknown keys are errors, not ignored: a misspelt capability must
// not silently become no capability. Problems are in line order.
//
// Paths are checked lexically; whether they exist, or lead outside the
// skill through a symlink, is for the loader to check against real files.
func ParseManifest(data []byte, file string) (*Manifest, Problems) {
	if len(data) > maxManifestSize {
		return nil, Problems{{File: file, Message: fmt.Sprintf(
			"skill.toml is %d bytes; the limit is %d KiB", len(data), maxManifestSize>>10)}}
	}
	if !utf8.Valid(data) {
		bad := 0
		for bad < len(data) {
			r, n := utf8.DecodeRune(data[bad:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			bad += n
		}
		return nil, Problems{{File: file, Line: bytes.Count(data[:bad], []byte("\n")) + 1,
			Message: "skill.toml is not valid UTF-8"}}
	}

	lines, tooDeep := tomlx.LocateKeys(data)
	if tooDeep > 0 {
		return nil, Problems{{File: file, Line: tooDeep, Message: fmt.Sprintf(
			"skill.toml nests keys, arrays or tables more than %d levels deep", tomlx.MaxNesting)}}
	}

	var top map[string]toml.Primitive
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&top)
	if err != nil {
		p := Problem{File: file, Message: "invalid TOML: " + err.Error()}
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			p.Line, p.Message = pe.Position.Line, "invalid TOML: "+pe.Message
			// When the offending character is a line break the parser
			// has already counted it; the byte offset gives the line the
			// author has to fix. (The parser drops a BOM before counting.)
			src := bytes.TrimPrefix(data, []byte("\uFEFF"))
			if start := pe.Position.Start; start > 0 && start < len(src) {
				p.Line = bytes.Count(src[:start], []byte("\n")) + 1
			}
		}
		return nil, Problems{p}
	}

	d := &manifestDecoder{md: &md, file: file, lines: lines}
	m := &Manifest{Version: 1}
	d.table(top, nil, reflect.ValueOf(m).Elem())
	d.check(m)
	sort.SliceStable(d.problems, func(i, j int) bool { return d.problems[i].Line < d.problems[j].Line })
	return m, d.problems
}

// manifestDecoder decodes a manifest one key at a time, so that one bad
// value does not hide the next, unknown keys are found with exact (not
// case-folded) names, and each problem names its key and line.
type manifestDecoder struct {
	md       *toml.MetaData
	file     string
	lines    tomlx.KeyLines
	problems Problems
}

func (d *manifestDecoder) add(key toml.Key, format string, args ...any) {
	d.problems = append(d.problems, Problem{
		File:    d.file,
		Line:    d.lines.Line(key),
		Field:   key.String(),
		Message: fmt.Sprintf(format, args...),
	})
}

// defined reports whether the document sets key.
func (d *manifestDecoder) defined(key toml.Key) bool { return d.md.IsDefined(key...) }

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// isTable reports whether values of t are decoded key by key (structs and
// pointers to structs), rather than as one value.
func isTable(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// tomlFields maps each TOML key of struct type t to its field index.
func tomlFields(t reflect.Type) ([]string, map[string]int) {
	var names []string
	index := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
		index[name] = i
	}
	return names, index
}

// table decodes the keys of one TOML table into the struct rv.
func (d *manifestDecoder) table(children map[string]toml.Primitive, path toml.Key, rv reflect.Value) {
	names, index := tomlFields(rv.Type())
	for _, name := range d.ordered(path, children) {
		key := append(path[:len(path):len(path)], name)
		i, ok := index[name]
		if !ok {
			d.add(key, "unknown key %q%s", key.String(), tomlx.DidYouMean(name, names))
			continue
		}
		d.value(children[name], key, rv.Field(i))
	}
}

// ordered returns the keys of children in document order.
func (d *manifestDecoder) ordered(path toml.Key, children map[string]toml.Primitive) []string {
	names := make([]string, 0, len(children))
	for name := range children {
		names = append(names, name)
	}
	line := func(name string) int { return d.lines.Line(append(path[:len(path):len(path)], name)) }
	sort.Slice(names, func(i, j int) bool {
		li, lj := line(names[i]), line(names[j])
		return li < lj || li == lj && names[i] < names[j]
	})
	return names
}

// value decodes one value into fv.
func (d *manifestDecoder) value(p toml.Primitive, key toml.Key, fv reflect.Value) {
	t := fv.Type()
	switch {
	case isTable(t):
		children, ok := d.subtable(p, key)
		if !ok {
			return
		}
		if t.Kind() == reflect.Pointer {
			fv.Set(reflect.New(t.Elem()))
			fv = fv.Elem()
		}
		d.table(children, key, fv)
	case t.Kind() == reflect.Map && isTable(t.Elem()):
		// A table of tables, such as [scripts.NAME]: any key is allowed
		// (names are checked later) and each value is a table.
		children, ok := d.subtable(p, key)
		if !ok {
			return
		}
		m := reflect.MakeMapWithSize(t, len(children))
		for _, name := range d.ordered(key, children) {
			sub := append(key[:len(key):len(key)], name)
			elem := reflect.New(t.Elem()).Elem()
			d.value(children[name], sub, elem)
			if elem.Kind() == reflect.Pointer && elem.IsNil() {
				continue // not a table; reported
			}
			if f := reflect.Indirect(elem).FieldByName("Name"); f.IsValid() && f.Kind() == reflect.String {
				f.SetString(name)
			}
			m.SetMapIndex(reflect.ValueOf(name), elem)
		}
		fv.Set(m)
	default:
		// Decode into a fresh value, so a bad value leaves the field as it
		// was (version stays 1) rather than half-decoded.
		nv := reflect.New(t)
		err := d.md.PrimitiveDecode(p, nv.Interface())
		if err == nil {
			fv.Set(nv.Elem())
			return
		}
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			// A TextUnmarshaler refused the value; its message names it.
			p := Problem{File: d.file, Line: pe.Position.Line, Field: key.String(), Message: key.String() + ": " + pe.Message}
			if p.Line == 0 {
				p.Line = d.lines.Line(key)
			}
			d.problems = append(d.problems, p)
			return
		}
		var raw any
		_ = d.md.PrimitiveDecode(p, &raw)
		d.add(key, "%s: expected %s, found %s", key.String(), describeType(t), tomlx.DescribeValue(raw))
	}
}

// subtable decodes p as a table, reporting any other value. (The toml
// package decodes a non-table into a map as an empty map, without error, so
// the type is checked first.)
func (d *manifestDecoder) subtable(p toml.Primitive, key toml.Key) (map[string]toml.Primitive, bool) {
	var raw any
	if err := d.md.PrimitiveDecode(p, &raw); err != nil {
		d.add(key, "%s: %v", key.String(), err)
		return nil, false
	}
	if _, ok := raw.(map[string]any); !ok {
		d.add(key, "%s: expected a table, found %s", key.String(), tomlx.DescribeValue(raw))
		return nil, false
	}
	var children map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(p, &children); err != nil {
		d.add(key, "%s: %v", key.String(), err)
		return nil, false
	}
	return children, true
}

// describeType names what a field expects, in TOML words.
func describeType(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[capabilities.Size]():
		return `a size such as "64MiB"`
	case reflect.TypeFor[capabilities.Duration]():
		return `a duration such as "10s"`
	}
	switch t.Kind() {
	case reflect.Slice:
		return "an array of strings"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	}
	return "a string"
}

// check applies the rules a decoder cannot: version, triggers, script
// names and kinds, paths, and capability lists.
func (d *manifestDecoder) check(m *Manifest) {
	if m.Version != 1 {
		d.add(toml.Key{"version"}, "version %d is not supported; this skillrun reads version 1", m.Version)
	}

	triggers := toml.Key{"triggers"}
	if len(m.Triggers) > maxTriggers {
		d.add(triggers, "triggers: %d entries; the limit is %d", len(m.Triggers), maxTriggers)
	} else {
		for i, t := range m.Triggers {
			switch {
			case strings.TrimSpace(t) == "":
				d.add(triggers, "triggers: entry %d is empty", i+1)
			case utf8.RuneCountInString(t) > maxTriggerLen:
				d.add(triggers, "triggers: %q is longer than %d characters", t, maxTriggerLen)
			}
		}
	}

	d.checkCapabilities(m.Capabilities, toml.Key{"capabilities"})
	for _, name := range m.ScriptNames() {
		d.checkScript(name, m.Scripts[name])
	}
}

// checkRequiredAgent checks a required_agent value: NAME, SKILL:NAME or
// user:NAME, each part a lowercase name.
func (d *manifestDecoder) checkRequiredAgent(key toml.Key, v string) {
	for _, p := range d.problems {
		if p.Field == key.String() {
			return // not a string: reported already
		}
	}
	skill, name, qualified := strings.Cut(v, ":")
	if !qualified {
		skill, name = "", v
	}
	switch {
	case len(v) > 128:
		d.add(key, "%s: %d bytes; the limit is 128", key, len(v))
	case qualified && !skillRefPattern.MatchString(skill):
		d.add(key, "%s: %q: before the colon, give a skill's name or \"user\" (SKILL:NAME, user:NAME)", key, v)
	case !agentNamePattern.MatchString(name):
		d.add(key, "%s: %q is not an agent name: give NAME (this skill's agents/NAME.md), SKILL:NAME (another skill's) or user:NAME (the operator's), with NAME lowercase letters, digits and single hyphens", key, v)
	}
}

// checkCapabilities reports each problem of set.Validate under its key.
func (d *manifestDecoder) checkCapabilities(set capabilities.Set, prefix toml.Key) {
	err := set.Validate()
	if err == nil {
		return
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		if ke, ok := errors.AsType[*capabilities.KeyError](e); ok {
			key := append(prefix[:len(prefix):len(prefix)], ke.Key)
			d.add(key, "%s: %v", key.String(), ke.Err)
		} else {
			d.add(prefix, "%s: %v", prefix.String(), e)
		}
	}
}

func (d *manifestDecoder) checkScript(name string, s *Script) {
	base := toml.Key{"scripts", name}
	sub := func(k ...string) toml.Key { return append(base[:len(base):len(base)], k...) }

	if !scriptNamePattern.MatchString(name) {
		d.add(base, "script name %q must match %s, since it becomes a tool name", name, scriptNamePattern)
	}

	var kinds []string
	for _, k := range []struct {
		key  string
		kind ScriptKind
	}{{"module", KindWASI}, {"plugin", KindExtism}, {"source", KindSource}} {
		if d.defined(sub(k.key)) {
			kinds = append(kinds, k.key)
			s.Kind = k.kind
		}
	}
	switch len(kinds) {
	case 0:
		d.add(base, "script %q needs one of module (a WASI program), plugin (an Extism plugin) or source (a script file)", name)
	case 1:
	default:
		s.Kind = ""
		d.add(base, "script %q sets %s; set exactly one of module, plugin or source", name, strings.Join(kinds, " and "))
	}

	if d.defined(sub("required_agent")) {
		d.checkRequiredAgent(sub("required_agent"), s.RequiredAgent)
	}

	hasPlugin := slices.Contains(kinds, "plugin")
	if d.defined(sub("export")) {
		if !hasPlugin {
			d.add(sub("export"), "%s: export applies only to plugin scripts", sub("export"))
		} else if s.Export == "" {
			d.add(sub("export"), "%s: must not be empty; omit it to call %q", sub("export"), defaultExport)
		}
	} else if s.Kind == KindExtism {
		s.Export = defaultExport
	}

	if b := s.Build; b != nil {
		if !hasPlugin && !slices.Contains(kinds, "module") {
			d.add(sub("build"), "%s: build applies only to module or plugin scripts; a source script runs as written", sub("build"))
		}
		switch {
		case !d.defined(sub("build", "lang")) || b.Lang == "":
			d.add(sub("build", "lang"), "%s: required; one of %s", sub("build", "lang"), strings.Join(buildLangs, ", "))
		case !slices.Contains(buildLangs, b.Lang):
			d.add(sub("build", "lang"), "%s: %q is not supported; use one of %s", sub("build", "lang"), b.Lang, strings.Join(buildLangs, ", "))
		}
		if !d.defined(sub("build", "dir")) {
			d.add(sub("build", "dir"), "%s: required; the folder of the sources, relative to the skill folder", sub("build", "dir"))
		} else if why := checkSkillRelPath(b.Dir, true); why != "" {
			d.add(sub("build", "dir"), "%s: %q %s", sub("build", "dir"), b.Dir, why)
		}
	}

	for _, f := range []struct {
		key   string
		value string
	}{
		{"module", s.Module}, {"plugin", s.Plugin}, {"source", s.Source},
		{"input_schema", s.InputSchema}, {"output_schema", s.OutputSchema},
	} {
		if !d.defined(sub(f.key)) {
			continue
		}
		if why := checkSkillRelPath(f.value, false); why != "" {
			d.add(sub(f.key), "%s: %q %s", sub(f.key), f.value, why)
		}
	}

	d.checkCapabilities(s.Capabilities, sub("capabilities"))
}

// checkSkillRelPath checks that p names something inside the skill folder,
// lexically: a clean, relative, slash-separated path. It returns why not,
// or "". With dir set, "." (the skill folder itself) is allowed.
func checkSkillRelPath(p string, dir bool) string {
	switch {
	case p == "":
		return "is empty; write a path relative to the skill folder"
	case strings.ContainsFunc(p, unicode.IsControl):
		return "contains a control character"
	case strings.Contains(p, `\`):
		return `contains a backslash; use "/" between folders`
	case strings.HasPrefix(p, "/"), len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "is absolute; write a path relative to the skill folder"
	case p == ".." || strings.HasPrefix(p, "../") || strings.HasSuffix(p, "/..") || strings.Contains(p, "/../"):
		return `leads outside the skill folder (".." is not allowed)`
	case p == ".":
		if dir {
			return ""
		}
		return "names the skill folder itself, not a file in it"
	case path.Clean(p) != p:
		return fmt.Sprintf(`is not a clean path (no ".", empty segments or trailing slash); write %q`, path.Clean(p))
	}
	return ""
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
