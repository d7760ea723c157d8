package capabilities

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/internal/tomlx"
)

// maxPolicySize bounds a policy file. Real policies are a few KiB.
const maxPolicySize = 256 << 10

// A Policy is an operator's standing grants, read from a TOML file:
//
//	# grants for every skill
//	[default]
//	read = ["workspace"]
//	timeout = "30s"
//
//	# grants for one skill, by name
//	[skills."csv-stats"]
//	read = ["workspace/data"]
//	write = ["workspace/out"]
//
//	# grants for one skill, pinned to where it lives and what it holds
//	[skills."deploy"]
//	path = "~/.agents/skills/deploy"
//	digest = "sha256:…"   # as `skillrun show --digest` prints it
//	env = ["API_TOKEN"]
//
// Each table takes the keys of the [capabilities] table of skill.toml, in
// the same words. A skill's table replaces the default for each key it
// sets, even to an empty list (net = [] withdraws a default net grant from
// that skill), and leaves the other keys to the default. What a script
// finally gets is still bounded by what it declares: see [Effective].
//
// A table is for a skill's identity, not for whoever claims its name: see
// [Policy.Grant], which the CLI uses. A name is what a stranger writes in
// SKILL.md; a location and a digest are what the operator chose.
//
// A Policy is plain data, safe for concurrent use when nobody modifies it.
type Policy struct {
	// Default is granted to every skill.
	Default Set
	// Skills holds per-skill grants, by skill name.
	Skills map[string]Set
	// Identities pins, by skill name, which skill a table is for: its
	// location and, optionally, its content digest. A table without an
	// entry here is for the skill of that name in a folder of that name,
	// when it is the only skill in play claiming the name.
	Identities map[string]Identity
	// Natives holds, by skill name, the tables that grant the native tier
	// (native = true): see [NativeGrant] and [Policy.Native].
	Natives map[string]NativeGrant

	// keys records, per skill, which keys its table sets. A Policy built
	// in Go code has none; then a key counts as set when it is non-empty.
	keys map[string][]string
}

// For returns what the policy's tables say for the name skill: the
// default, with each key the skill's own table sets replaced by the
// skill's value. It checks no identity: use [Policy.Grant] to grant a
// skill met on disk, which may claim any name. The result shares no memory
// with the policy. A nil Policy grants nothing.
func (p *Policy) For(skill string) Set {
	if p == nil {
		return Set{}
	}
	s := Merge(p.Default, Set{})
	own, ok := p.Skills[skill]
	if !ok {
		return s
	}
	dst, src := setFields(&s), setFields(&own)
	keys, recorded := p.keys[skill]
	for _, key := range setKeys {
		if recorded && !slices.Contains(keys, key) || !recorded && !src[key].isSet() {
			continue
		}
		dst[key].assign(src[key])
	}
	return Merge(s, Set{})
}

// LoadPolicy reads and parses the policy file at path; see [ParsePolicy].
func LoadPolicy(path string) (*Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPolicySize+1))
	if err != nil {
		return nil, fmt.Errorf("reading policy: %w", err)
	}
	return ParsePolicy(data, path)
}

// ParsePolicy parses a policy file strictly; file names it in errors. An
// unknown key, a value of the wrong type, a malformed capability and every
// problem [Set.Validate] finds are errors, each naming the file, the line
// where it could be found, and the key ("policy.toml:3: unknown key
// \"default.reed\""): a misspelt grant must not silently grant nothing, or
// worse, leave a default in place. All problems are reported, joined with
// [errors.Join]. The file is bounded (256 KiB) and so is how deeply it
// may nest.
func ParsePolicy(data []byte, file string) (*Policy, error) {
	if len(data) > maxPolicySize {
		return nil, fmt.Errorf("%s: policy is larger than the limit of %d KiB", file, maxPolicySize>>10)
	}
	lines, tooDeep := locatePolicyKeys(data)
	if tooDeep > 0 {
		return nil, fmt.Errorf("%s:%d: policy nests keys, arrays or tables too deeply", file, tooDeep)
	}
	var top map[string]toml.Primitive
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&top)
	if err != nil {
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			return nil, fmt.Errorf("%s:%d: invalid TOML: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: invalid TOML: %w", file, err)
	}
	d := &policyDecoder{md: &md, file: file, lines: lines}
	p := &Policy{}
	for _, name := range sortedKeys(top) {
		key := toml.Key{name}
		switch name {
		case "default":
			if children, ok := d.table(top[name], key); ok {
				d.refuseNative(children, key)
				p.Default, _ = d.setOf(children, key)
			}
		case "skills":
			skills, ok := d.table(top[name], key)
			if !ok {
				continue
			}
			p.Skills = make(map[string]Set, len(skills))
			p.keys = make(map[string][]string, len(skills))
			for _, skill := range sortedKeys(skills) {
				sub := toml.Key{name, skill}
				if err := checkSkillName(skill); err != nil {
					d.add(sub, "%s: %v", sub, err)
					continue
				}
				children, ok := d.table(skills[skill], sub)
				if !ok {
					continue
				}
				if id, ok := d.identity(children, sub, filepath.Dir(file)); ok {
					if p.Identities == nil {
						p.Identities = map[string]Identity{}
					}
					p.Identities[skill] = id
				}
				if ng, on := d.native(children, sub); on {
					if p.Natives == nil {
						p.Natives = map[string]NativeGrant{}
					}
					p.Natives[skill] = ng
				}
				p.Skills[skill], p.keys[skill] = d.setOf(children, sub)
			}
		default:
			d.add(key, "unknown key %q; a policy has a [default] table and [skills.NAME] tables", key.String())
		}
	}
	if err := d.err(); err != nil {
		return nil, err
	}
	return p, nil
}

type policyDecoder struct {
	md       *toml.MetaData
	file     string
	lines    tomlx.KeyLines
	problems []policyProblem
	dropped  int // problems beyond maxPolicyProblems
}

type policyProblem struct {
	line int
	msg  string
}

// maxPolicyProblems bounds the problems reported for one file: nobody
// reads the hundredth problem before fixing the first.
const maxPolicyProblems = 20

// add records a problem with key, at the key's line when it can be found.
func (d *policyDecoder) add(key toml.Key, format string, args ...any) {
	d.addAt(d.lines.Line(key), format, args...)
}

func (d *policyDecoder) addAt(line int, format string, args ...any) {
	if len(d.problems) >= maxPolicyProblems {
		d.dropped++
		return
	}
	d.problems = append(d.problems, policyProblem{line, fmt.Sprintf(format, args...)})
}

// err returns every problem in line order, joined, or nil.
func (d *policyDecoder) err() error {
	slices.SortStableFunc(d.problems, func(a, b policyProblem) int { return cmp.Compare(a.line, b.line) })
	errs := make([]error, len(d.problems))
	for i, p := range d.problems {
		if p.line > 0 {
			errs[i] = fmt.Errorf("%s:%d: %s", d.file, p.line, p.msg)
		} else {
			errs[i] = fmt.Errorf("%s: %s", d.file, p.msg)
		}
	}
	if d.dropped > 0 {
		errs = append(errs, fmt.Errorf("%s: %d more problems not shown", d.file, d.dropped))
	}
	return errors.Join(errs...)
}

// table decodes p as a table. (The toml package decodes a non-table into
// a map as an empty map, without error, so the type is checked first.)
func (d *policyDecoder) table(p toml.Primitive, key toml.Key) (map[string]toml.Primitive, bool) {
	var raw any
	if err := d.md.PrimitiveDecode(p, &raw); err != nil {
		d.add(key, "%s: %v", key, err)
		return nil, false
	}
	if _, ok := raw.(map[string]any); !ok {
		d.add(key, "%s: expected a table, found %s", key, tomlx.DescribeValue(raw))
		return nil, false
	}
	var children map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(p, &children); err != nil {
		d.add(key, "%s: %v", key, err)
		return nil, false
	}
	return children, true
}

// setOf decodes the keys of a capability table, key by key, and
// validates it. It returns the set and the keys the table sets.
func (d *policyDecoder) setOf(children map[string]toml.Primitive, key toml.Key) (Set, []string) {
	var s Set
	fields := setFields(&s)
	var keys []string
	for _, name := range sortedKeys(children) {
		sub := append(key[:len(key):len(key)], name)
		f, ok := fields[name]
		if !ok {
			d.add(sub, "unknown key %q%s; the keys are %s", sub.String(), suggestKey(name), strings.Join(setKeys, ", "))
			continue
		}
		keys = append(keys, name)
		// Decode into a fresh value, so a bad value leaves the field
		// zero rather than half-decoded.
		nv := reflect.New(reflect.TypeOf(f.ptr).Elem())
		err := d.md.PrimitiveDecode(children[name], nv.Interface())
		if err == nil {
			reflect.ValueOf(f.ptr).Elem().Set(nv.Elem())
			continue
		}
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			// A TextUnmarshaler refused the value; its message names it.
			d.addAt(pe.Position.Line, "%s: %s", sub, pe.Message)
			continue
		}
		var raw any
		_ = d.md.PrimitiveDecode(children[name], &raw)
		d.add(sub, "%s: expected %s, found %s", sub, f.want, tomlx.DescribeValue(raw))
	}
	if err := s.Validate(); err != nil {
		for _, e := range unjoin(err) {
			if ke, ok := errors.AsType[*KeyError](e); ok {
				sub := append(key[:len(key):len(key)], ke.Key)
				d.add(sub, "%s: %v", sub, ke.Err)
			} else {
				d.add(key, "%s: %v", key, e)
			}
		}
	}
	return s, keys
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// setKeys are the keys of a capability table, in skill.toml order.
var setKeys = []string{"read", "write", "env", "net", "tools", "mcp", "skills", "memory", "timeout", "output"}

// A setField is one field of a [Set], reached by its key.
type setField struct {
	ptr  any    // pointer to the field
	want string // what the key takes, for messages
}

func (f setField) isSet() bool {
	switch p := f.ptr.(type) {
	case *[]Path:
		return len(*p) > 0
	case *[]HostPattern:
		return len(*p) > 0
	case *[]string:
		return len(*p) > 0
	case *Size:
		return *p != 0
	case *Duration:
		return *p != 0
	}
	return false
}

// assign copies src's field into f's, sharing no memory.
func (f setField) assign(src setField) {
	switch p := f.ptr.(type) {
	case *[]Path:
		*p = slices.Clone(*src.ptr.(*[]Path))
	case *[]HostPattern:
		*p = slices.Clone(*src.ptr.(*[]HostPattern))
	case *[]string:
		*p = slices.Clone(*src.ptr.(*[]string))
	case *Size:
		*p = *src.ptr.(*Size)
	case *Duration:
		*p = *src.ptr.(*Duration)
	}
}

// setFields maps each key of a capability table to its field in s.
func setFields(s *Set) map[string]setField {
	const list = "an array of strings"
	return map[string]setField{
		"read":    {&s.Read, list},
		"write":   {&s.Write, list},
		"env":     {&s.Env, list},
		"net":     {&s.Net, list},
		"tools":   {&s.Tools, list},
		"mcp":     {&s.MCP, list},
		"skills":  {&s.Skills, list},
		"memory":  {&s.Memory, `a size such as "64MiB"`},
		"timeout": {&s.Timeout, `a duration such as "10s"`},
		"output":  {&s.Output, `a size such as "1MiB"`},
	}
}

// suggestKey names the key of a capability table that name most likely
// meant, if one is close.
func suggestKey(name string) string {
	if k := tomlx.Closest(name, setKeys); k != "" {
		return fmt.Sprintf(" (did you mean %q?)", k)
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Nesting bounds for a policy file, which needs at most a table header of
// three parts and arrays of strings. The TOML decoder takes time quadratic
// in the nesting of keys and inline tables (a 30 KiB line of dotted keys
// takes seconds), so the file is scanned before it is decoded.
const (
	maxPolicyDepth = 8  // open arrays and inline tables at once
	maxPolicyDots  = 32 // dots in one full key, so maxPolicyDots+1 parts
)

// locatePolicyKeys scans src with [tomlx.LocateKeysWithin] under the
// policy's nesting bounds. It returns the line of every key src defines,
// and the line where keys or values nest too deeply, or 0.
func locatePolicyKeys(src []byte) (tomlx.KeyLines, int) {
	return tomlx.LocateKeysWithin(src, maxPolicyDots+1, maxPolicyDepth)
}
