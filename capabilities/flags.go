package capabilities

import (
	"errors"
	"fmt"
	"strings"
)

// A FlagGrant is one --allow-KIND[=VALUE] flag as the user typed it.
type FlagGrant struct {
	// Kind is the skill.toml key of a list: read, write, env, net, tools,
	// mcp or skills.
	Kind string
	// Value is the text after "=", in skill.toml words; several values are
	// separated by commas ("LANG,TZ").
	Value string
	// HasValue reports whether the flag had "=" at all. --allow-env= (an
	// empty value) is an error, not the same as --allow-env.
	HasValue bool
}

// String returns the flag as the user typed it: "--allow-env=LANG,TZ".
func (f FlagGrant) String() string {
	if !f.HasValue {
		return "--allow-" + f.Kind
	}
	return "--allow-" + f.Kind + "=" + f.Value
}

// GrantFromFlags builds the granted [Set] from the command line's grant
// flags, for a script whose declaration (see [Merge]) is declared.
//
// A flag with no value grants everything declared names for that kind;
// with a value, only that, written as in skill.toml and parsed the same way
// ([ParsePath], [ParseHostPattern], and the name rules of [Set.Validate]).
// all (-A, --allow-all) grants exactly the declaration, limits included;
// never more. Flags add up: --allow-read=skill --allow-read=workspace grants
// both. Limits (--timeout, --memory) are not grant flags: the caller sets
// them on the returned Set, and [Effective] takes the smaller of each.
//
// Every problem is reported, joined with [errors.Join], each naming the flag
// and value: an unknown kind, an empty value, a malformed value
// (`--allow-read=../x: invalid path "../x": ...`), or a value that overlaps
// nothing the skill declares, which would grant nothing and is almost
// certainly a mistake (`--allow-read=workspace/x grants nothing: the skill
// declares read = workspace/data`). On error the Set is zero.
//
// A flag with no value for a kind the skill does not declare is accepted and
// grants nothing, so a wrapper may pass the same flags to every skill.
func GrantFromFlags(declared Set, all bool, flags []FlagGrant) (Set, error) {
	var g Set
	if all {
		g = Merge(declared, Set{})
	}
	var errs []error
	for _, f := range flags {
		k, ok := kindByName(f.Kind)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: unknown capability kind %q; use one of %s", f, f.Kind, kindNames()))
			continue
		}
		if !f.HasValue {
			k.grantAll(&g, declared)
			continue
		}
		if f.Value == "" {
			errs = append(errs, fmt.Errorf("%s: empty value; write %s to grant all the skill declares for %s, or name what to grant, as in %s",
				f, FlagGrant{Kind: f.Kind}, f.Kind, FlagGrant{Kind: f.Kind, Value: k.example, HasValue: true}))
			continue
		}
		for v := range strings.SplitSeq(f.Value, ",") {
			if v == "" {
				errs = append(errs, fmt.Errorf("%s: empty value between commas", f))
				continue
			}
			one := FlagGrant{Kind: f.Kind, Value: v, HasValue: true}
			var single Set
			if err := k.add(&single, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", one, err))
				continue
			}
			if k.empty(Effective(declared, single)) {
				errs = append(errs, fmt.Errorf("%s grants nothing: %s", one, declares(declared, k)))
				continue
			}
			_ = k.add(&g, v)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Set{}, err
	}
	return Merge(g, Set{}), nil
}

// declares says what the skill declares of kind k, for messages.
func declares(declared Set, k *kind) string {
	words := k.words(declared)
	if len(words) == 0 {
		return "the skill declares no " + k.name
	}
	return "the skill declares " + k.name + " = " + strings.Join(words, ", ")
}

// FlagFor returns the command-line flag that grants value of kind, for
// messages that tell the user what to add: FlagFor("read", "workspace") is
// "--allow-read=workspace", and FlagFor("env", "") is "--allow-env". It is
// returned as one shell word: a value holding characters a shell would
// expand, such as the "*" of "*.example.org", is single-quoted.
func FlagFor(kind, value string) string {
	return shellWord(FlagGrant{Kind: kind, Value: value, HasValue: value != ""}.String())
}

// Flags returns the flags that grant s, one per kind (read, write, env,
// net, tools, mcp, skills), each with its values joined by commas:
// ["--allow-read=workspace", "--allow-env=LANG,TZ"]. Limits have no grant
// flag and are left out. Each flag is one shell word, as [FlagFor] returns.
func Flags(s Set) []string {
	var flags []string
	for _, k := range kinds {
		if words := k.words(s); len(words) > 0 {
			flags = append(flags, FlagFor(k.name, strings.Join(words, ",")))
		}
	}
	return flags
}

// Describe lists s in flag words for messages, kind by kind in the order of
// [Flags] and then the limits: "read=skill,workspace, env=LANG,
// timeout=10s". The zero Set is "nothing".
func Describe(s Set) string {
	var parts []string
	for _, k := range kinds {
		if words := k.words(s); len(words) > 0 {
			parts = append(parts, k.name+"="+strings.Join(words, ","))
		}
	}
	if s.Memory != 0 {
		parts = append(parts, "memory="+s.Memory.String())
	}
	if s.Timeout != 0 {
		parts = append(parts, "timeout="+s.Timeout.String())
	}
	if s.Output != 0 {
		parts = append(parts, "output="+s.Output.String())
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// NotGranted is the denial of a run that was granted nothing of what it
// declares, as `skillrun run` says it where it cannot ask: who (a
// skill:script label) needs missing, and the flags that grant it.
func NotGranted(who string, missing Set) string {
	return fmt.Sprintf("%s needs %s: not granted; add %s (or -A to grant all the skill declares)",
		who, Describe(missing), strings.Join(Flags(missing), " "))
}

// AlsoDeclared is the note for a run granted part of what it declares:
// the rest, missing, stays denied, and the flags that would grant it.
func AlsoDeclared(who string, missing Set) string {
	return fmt.Sprintf("%s also declares %s, not granted (add %s to grant it)",
		who, Describe(missing), strings.Join(Flags(missing), " "))
}

// shellWord quotes s for a POSIX shell when it holds anything but
// characters that are safe unquoted.
func shellWord(s string) string {
	safe := func(r rune) bool {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
			strings.ContainsRune("-_=.,/:@%+", r)
	}
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !safe(r) }) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// A kind knows how to read, write and parse one list of a [Set].
type kind struct {
	name    string
	example string // a value for messages
	// words returns the list's elements in skill.toml words.
	words func(Set) []string
	// add parses v and appends it to the list.
	add func(s *Set, v string) error
	// grantAll copies the declared list into g's list.
	grantAll func(g *Set, declared Set)
}

func (k *kind) empty(s Set) bool { return len(k.words(s)) == 0 }

// kinds are the lists of a [Set] that are granted by name, in the order of
// skill.toml; each name is a skill.toml key and the KIND of --allow-KIND.
var kinds = []*kind{
	pathKind("read", "workspace/data", func(s *Set) *[]Path { return &s.Read }),
	pathKind("write", "workspace/out", func(s *Set) *[]Path { return &s.Write }),
	nameKind("env", "LANG", checkEnvName, func(s *Set) *[]string { return &s.Env }),
	{
		name: "net", example: "api.example.com",
		words: func(s Set) []string { return textWords(s.Net, HostPattern.String) },
		add: func(s *Set, v string) error {
			p, err := ParseHostPattern(v)
			if err == nil {
				s.Net = append(s.Net, p)
			}
			return err
		},
		grantAll: func(g *Set, d Set) { g.Net = append(g.Net, d.Net...) },
	},
	nameKind("tools", "workspace_read", checkToolName, func(s *Set) *[]string { return &s.Tools }),
	nameKind("mcp", "github/*", checkMCPPattern, func(s *Set) *[]string { return &s.MCP }),
	nameKind("skills", "pdf-extract", checkSkillName, func(s *Set) *[]string { return &s.Skills }),
}

func kindNames() string { return strings.Join(Kinds(), ", ") }

func kindByName(name string) (*kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return nil, false
}

func pathKind(name, example string, list func(*Set) *[]Path) *kind {
	return &kind{
		name: name, example: example,
		words: func(s Set) []string { return textWords(*list(&s), Path.String) },
		add: func(s *Set, v string) error {
			p, err := ParsePath(v)
			if err == nil {
				*list(s) = append(*list(s), p)
			}
			return err
		},
		grantAll: func(g *Set, d Set) { *list(g) = append(*list(g), *list(&d)...) },
	}
}

func nameKind(name, example string, check func(string) error, list func(*Set) *[]string) *kind {
	return &kind{
		name: name, example: example,
		words: func(s Set) []string { return *list(&s) },
		add: func(s *Set, v string) error {
			err := check(v)
			if err == nil {
				*list(s) = append(*list(s), v)
			}
			return err
		},
		grantAll: func(g *Set, d Set) { *list(g) = append(*list(g), *list(&d)...) },
	}
}

func textWords[T any](list []T, text func(T) string) []string {
	if len(list) == 0 {
		return nil
	}
	words := make([]string, len(list))
	for i, v := range list {
		words[i] = text(v)
	}
	return words
}
