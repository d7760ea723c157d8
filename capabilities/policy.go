package capabilities

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// MaxPolicySize bounds a policy file. Real policies are a few KiB.
const MaxPolicySize = 256 << 10

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
// Each table takes the keys of the [capabilities] table of skill.toml, in
// the same words. A skill's table replaces the default for each key it
// sets, even to an empty list (net = [] withdraws a default net grant from
// that skill), and leaves the other keys to the default. What a script
// finally gets is still bounded by what it declares: see [Effective].
//
// A Policy is plain data, safe for concurrent use when nobody modifies it.
type Policy struct {
	// Default is granted to every skill.
	Default Set
	// Skills holds per-skill grants, by skill name.
	Skills map[string]Set

	// keys records, per skill, which keys its table sets. A Policy built
	// in Go code has none; then a key counts as set when it is non-empty.
	keys map[string][]string
}

// For returns what the policy grants the named skill: the default, with
// each key the skill's own table sets replaced by the skill's value. The
// result shares no memory with the policy. A nil Policy grants nothing.
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
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicySize+1))
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
// [errors.Join]. The file is bounded by [MaxPolicySize] and by how deeply it
// may nest.
func ParsePolicy(data []byte, file string) (*Policy, error) {
	if len(data) > MaxPolicySize {
		return nil, fmt.Errorf("%s: policy is larger than the limit of %d KiB", file, MaxPolicySize>>10)
	}
	if line := nestedTooDeep(data); line > 0 {
		return nil, fmt.Errorf("%s:%d: policy nests keys, arrays or tables too deeply", file, line)
	}
	var top map[string]toml.Primitive
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&top)
	if err != nil {
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			return nil, fmt.Errorf("%s:%d: invalid TOML: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: invalid TOML: %w", file, err)
	}
	d := &policyDecoder{md: &md, file: file, data: data}
	p := &Policy{}
	for _, name := range sortedKeys(top) {
		key := toml.Key{name}
		switch name {
		case "default":
			p.Default, _ = d.set(top[name], key)
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
				p.Skills[skill], p.keys[skill] = d.set(skills[skill], sub)
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
	data     []byte
	lines    []string // data split into lines, when needed
	problems []policyProblem
	dropped  int // problems beyond maxPolicyProblems
}

type policyProblem struct {
	line int
	msg  string
}

// maxPolicyProblems bounds the problems reported for one file: finding a
// key's line costs a pass over the file, and nobody reads the hundredth
// problem before fixing the first.
const maxPolicyProblems = 20

// add records a problem with key, at the key's line when it can be found.
func (d *policyDecoder) add(key toml.Key, format string, args ...any) {
	if len(d.problems) >= maxPolicyProblems {
		d.dropped++
		return
	}
	if d.lines == nil {
		d.lines = strings.Split(string(d.data), "\n")
	}
	d.addAt(keyLine(d.lines, key), format, args...)
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
		d.add(key, "%s: expected a table, found %s", key, describeTOML(raw))
		return nil, false
	}
	var children map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(p, &children); err != nil {
		d.add(key, "%s: %v", key, err)
		return nil, false
	}
	return children, true
}

// set decodes p as a capability table, key by key, and validates it. It
// returns the set and the keys the table sets.
func (d *policyDecoder) set(p toml.Primitive, key toml.Key) (Set, []string) {
	var s Set
	children, ok := d.table(p, key)
	if !ok {
		return s, nil
	}
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
		if line := errLine(err); line > 0 {
			d.addAt(line, "%s: expected %s, found %s", sub, f.want, describeTOML(raw))
		} else {
			d.add(sub, "%s: expected %s, found %s", sub, f.want, describeTOML(raw))
		}
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
// meant, if one is close: a different case, or one letter off.
func suggestKey(name string) string {
	for _, k := range setKeys {
		if strings.EqualFold(k, name) || len(k) > 3 && oneEditApart(strings.ToLower(name), k) {
			return fmt.Sprintf(" (did you mean %q?)", k)
		}
	}
	return ""
}

// oneEditApart reports whether a and b differ by one inserted, deleted or
// replaced byte, or by two adjacent bytes swapped.
func oneEditApart(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:] ||
			i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	}
	return a[i+1:] == b[i:]
}

// describeTOML names a decoded TOML value's type.
func describeTOML(v any) string {
	switch v := v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return "an array containing " + describeTOML(e)
			}
		}
		return "an array"
	case time.Time:
		return "a date-time"
	}
	return "a date or time"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// keyLine returns the line of the policy that defines key, or 0. The toml
// package does not say where keys are, so this looks, within the key's
// table when its header can be found, for the one line that defines the
// key's last part: as a table header ([skills."csv-stats"]) or as a key
// ("reed = ..."), bare or quoted. When no line or several do, it gives up
// rather than guess.
func keyLine(lines []string, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	start, end := 0, len(lines)
	if len(key) > 1 {
		table := regexp.MustCompile(`^\s*\[\s*` + keyPattern(key[:len(key)-1]) + `\s*\]\s*(?:#.*)?$`)
		isTable := func(l string) bool {
			return strings.HasPrefix(strings.TrimSpace(l), "[") && table.MatchString(l)
		}
		if h := uniqueLine(lines, isTable); h > 0 {
			start, end = h, h+1
			for end < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[end]), "[") {
				end++
			}
		}
	}
	name := keyPattern(key[len(key)-1:])
	header := regexp.MustCompile(`^\s*\[\[?\s*(?:[^\]#]*\.\s*)?` + name + `\s*\]`)
	assign := regexp.MustCompile(`^\s*(?:[^=#\[]*\.\s*)?` + name + `\s*(?:=|\.)`)
	last := key[len(key)-1]
	defines := func(l string) bool {
		return strings.Contains(l, last) && (header.MatchString(l) || assign.MatchString(l))
	}
	if l := uniqueLine(lines[start:end], defines); l > 0 {
		return start + l
	}
	return 0
}

// keyPattern returns a regular expression matching key as TOML writes it,
// each part bare or quoted.
func keyPattern(key toml.Key) string {
	parts := make([]string, len(key))
	for i, k := range key {
		q := regexp.QuoteMeta(k)
		parts[i] = `(?:` + q + `|"` + q + `"|'` + q + `')`
	}
	return strings.Join(parts, `\s*\.\s*`)
}

// uniqueLine returns the 1-based number of the one line that match
// accepts, or 0 when none or several do.
func uniqueLine(lines []string, match func(string) bool) int {
	found := 0
	for i, l := range lines {
		if match(l) {
			if found != 0 {
				return 0
			}
			found = i + 1
		}
	}
	return found
}

// errLine returns the line a toml decoding error names ("toml: line 3
// (last key ...)"), or 0.
func errLine(err error) int {
	m := errLinePattern.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var errLinePattern = regexp.MustCompile(`^toml: line (\d+)\b`)

// Nesting bounds for a policy file, which needs at most a table header of
// three parts and arrays of strings. The TOML decoder takes time quadratic
// in the nesting of keys and inline tables (a 30 KiB line of dotted keys
// takes seconds), so the file is scanned before it is decoded.
const (
	maxPolicyDepth = 8  // open arrays and inline tables at once
	maxPolicyDots  = 32 // dots outside strings on one line
)

// nestedTooDeep scans src, skipping strings and comments, and returns the
// line where arrays and inline tables nest deeper than maxPolicyDepth or a
// line holds more than maxPolicyDots dots, or 0. It only counts: a file it
// misreads is still checked by the decoder.
func nestedTooDeep(src []byte) int {
	line, depth, dots := 1, 0, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
			dots = 0
		case c == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			delim := []byte{c}
			if bytes.HasPrefix(src[i:], []byte{c, c, c}) {
				delim = []byte{c, c, c}
			}
			j, closed := i+len(delim), false
			for j < len(src) {
				if bytes.HasPrefix(src[j:], delim) {
					closed = true
					break
				}
				if len(delim) == 1 && src[j] == '\n' {
					break // unterminated; the decoder reports it
				}
				if c == '"' && src[j] == '\\' && j+1 < len(src) {
					j++
				}
				if src[j] == '\n' {
					line++
				}
				j++
			}
			if closed {
				i = j + len(delim) - 1
			} else {
				i = j - 1
			}
		case c == '[' || c == '{':
			depth++
			if depth > maxPolicyDepth {
				return line
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		case c == '.':
			dots++
			if dots > maxPolicyDots {
				return line
			}
		}
	}
	return 0
}
