package capabilities

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// A Set is a list of capabilities: what a skill declares in the
// [capabilities] table of skill.toml (or a script in its own
// [scripts.NAME.capabilities]), and equally what an operator grants. Field
// names and TOML keys are the skill.toml keys; the JSON form uses the same
// words, so `--json` output reads like the manifest.
//
// The zero Set names nothing and so allows nothing. A zero limit (Memory,
// Timeout, Output) means "not declared": the runtime's default applies.
//
// Decoding checks each element's syntax (through the TextUnmarshaler of
// [Path], [HostPattern], [Size] and [Duration]); [Set.Validate] checks the
// rest. A Set is plain data, safe for concurrent use when nobody modifies it.
type Set struct {
	// Read lists the paths a script may read.
	Read []Path `toml:"read" json:"read,omitempty"`
	// Write lists the paths a script may write (and read).
	Write []Path `toml:"write" json:"write,omitempty"`
	// Env lists environment variable names a script may see.
	Env []string `toml:"env" json:"env,omitempty"`
	// Net lists the hosts a script may reach through the HTTP host function.
	Net []HostPattern `toml:"net" json:"net,omitempty"`
	// Tools lists host tools a script may call, by name.
	Tools []string `toml:"tools" json:"tools,omitempty"`
	// MCP lists MCP tools a script may call, as "server/tool" or
	// "server/*".
	MCP []string `toml:"mcp" json:"mcp,omitempty"`
	// Skills lists other skills a script may run, by name.
	Skills []string `toml:"skills" json:"skills,omitempty"`
	// Memory bounds the script's linear memory.
	Memory Size `toml:"memory" json:"memory,omitempty"`
	// Timeout bounds one run of the script.
	Timeout Duration `toml:"timeout" json:"timeout,omitempty"`
	// Output bounds the bytes a script may write to stdout and stderr (or
	// return, for a plugin).
	Output Size `toml:"output" json:"output,omitempty"`
}

// maxListLen bounds every list in a [Set]. Real skills name a handful of
// each; the bound keeps untrusted manifests from making checks expensive.
const maxListLen = 256

// A KeyError is one problem with one key of a [Set]. [Set.Validate] returns
// them joined; callers that report problems per key (with a file and line)
// unwrap the join and take each KeyError's Key.
type KeyError struct {
	// Key is the skill.toml key, such as "env" or "net".
	Key string
	// Err says what is wrong, naming the offending value.
	Err error
}

func (e *KeyError) Error() string { return e.Key + ": " + e.Err.Error() }

func (e *KeyError) Unwrap() error { return e.Err }

// Validate checks the rules that decoding a single element cannot: names
// are well formed (environment variable names match [A-Za-z_][A-Za-z0-9_]*,
// tool and skill names are non-empty without spaces, MCP patterns are
// "server/tool" or "server/*"), no list is longer than 256 entries or names
// the same thing twice, and values built in Go code are what parsing their
// text would produce. It returns every problem, each a [*KeyError], joined
// with [errors.Join], or nil.
func (s Set) Validate() error {
	var errs []error
	errs = append(errs, checkList("read", s.Read, Path.validate)...)
	errs = append(errs, checkList("write", s.Write, Path.validate)...)
	errs = append(errs, checkList("env", s.Env, checkEnvName)...)
	errs = append(errs, checkList("net", s.Net, HostPattern.validate)...)
	errs = append(errs, checkList("tools", s.Tools, checkToolName)...)
	errs = append(errs, checkList("mcp", s.MCP, checkMCPPattern)...)
	errs = append(errs, checkList("skills", s.Skills, checkSkillName)...)
	for _, limit := range []struct {
		key string
		err error
	}{
		{"memory", s.Memory.validate()},
		{"timeout", s.Timeout.validate()},
		{"output", s.Output.validate()},
	} {
		if limit.err != nil {
			errs = append(errs, &KeyError{Key: limit.key, Err: limit.err})
		}
	}
	return errors.Join(errs...)
}

// checkList checks the length of list, each element with check, and that
// no element appears twice. It returns one [*KeyError] per problem.
func checkList[T comparable](key string, list []T, check func(T) error) []error {
	if len(list) > maxListLen {
		return []error{&KeyError{Key: key, Err: fmt.Errorf("%d entries; the limit is %d", len(list), maxListLen)}}
	}
	var errs []error
	seen := make(map[T]int, len(list))
	for _, v := range list {
		if err := check(v); err != nil {
			errs = append(errs, &KeyError{Key: key, Err: err})
			continue
		}
		seen[v]++
		if seen[v] == 2 {
			errs = append(errs, &KeyError{Key: key, Err: fmt.Errorf("%q is listed more than once", fmt.Sprint(v))})
		}
	}
	return errs
}

func checkEnvName(name string) error {
	ok := name != ""
	for i, c := range name {
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("%q is not a valid environment variable name (letters, digits and _, not starting with a digit)", name)
	}
	return nil
}

func hasSpace(s string) bool { return strings.ContainsFunc(s, unicode.IsSpace) }

func hasControl(s string) bool { return strings.ContainsFunc(s, unicode.IsControl) }

func checkToolName(name string) error {
	if name == "" || hasSpace(name) || hasControl(name) {
		return fmt.Errorf("%q is not a valid tool name (non-empty, no spaces)", name)
	}
	return nil
}

func checkSkillName(name string) error {
	if name == "" || hasSpace(name) || hasControl(name) {
		return fmt.Errorf("%q is not a valid skill name (non-empty, no spaces)", name)
	}
	return nil
}

// checkMCPPattern accepts "server/tool" and "server/*". The server is
// always named: a skill may not ask for every MCP server at once.
func checkMCPPattern(p string) error {
	server, tool, ok := strings.Cut(p, "/")
	switch {
	case !ok || server == "" || tool == "" || strings.Contains(tool, "/"),
		hasSpace(p), hasControl(p),
		strings.Contains(server, "*"),
		tool != "*" && strings.Contains(tool, "*"):
		return fmt.Errorf(`%q is not a valid MCP pattern; write "server/tool" or "server/*"`, p)
	}
	return nil
}

// IsZero reports whether the set names nothing and sets no limit.
func (s Set) IsZero() bool {
	return len(s.Read) == 0 && len(s.Write) == 0 && len(s.Env) == 0 &&
		len(s.Net) == 0 && len(s.Tools) == 0 && len(s.MCP) == 0 &&
		len(s.Skills) == 0 && s.Memory == 0 && s.Timeout == 0 && s.Output == 0
}
