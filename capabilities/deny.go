package capabilities

import (
	"fmt"
	"io/fs"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// ErrDenied matches every denial: errors.Is(err, ErrDenied) reports whether
// err is, or wraps, a [*DeniedError]. It wraps [fs.ErrPermission], so code
// that only knows io/fs treats a denial as a permission error.
var ErrDenied error = deniedError{}

// deniedError is the type of [ErrDenied]: comparable, and wrapping
// fs.ErrPermission.
type deniedError struct{}

func (deniedError) Error() string { return "capability denied" }
func (deniedError) Unwrap() error { return fs.ErrPermission }

// A DeniedError is a capability use that the effective grant does not
// allow. The checks on [Set] return it; the runtime fills in Skill and
// Script, and may set Undeclared after checking the skill's declaration,
// so that the message says what to do next. It unwraps to [ErrDenied],
// and through it to [fs.ErrPermission].
//
// Its message reads
//
//	csv-stats:stats: net api.example.com:443 denied: not granted (add --allow-net=api.example.com)
type DeniedError struct {
	// Kind is the skill.toml key of the capability: read, write, env, net,
	// tools, mcp or skills.
	Kind string
	// Value is what the script tried to use: a path ("workspace/data/in.csv"),
	// a variable name, "host:port", "server/tool", a tool or skill name.
	Value string
	// Skill and Script name the script, when known.
	Skill, Script string
	// Undeclared reports that the skill's declaration does not allow the
	// use either, so no grant flag can allow it: the message says so
	// instead of naming a flag.
	Undeclared bool
	// Reason, when set, replaces the explanation ("not granted"), for a
	// use that is refused whatever the grant, such as an invalid path. No
	// flag is suggested then.
	Reason string
}

func (e *DeniedError) Error() string {
	var b strings.Builder
	switch {
	case e.Skill != "" && e.Script != "":
		b.WriteString(e.Skill + ":" + e.Script + ": ")
	case e.Skill != "":
		b.WriteString(e.Skill + ": ")
	case e.Script != "":
		b.WriteString(e.Script + ": ")
	}
	b.WriteString(e.Kind)
	if e.Value != "" {
		b.WriteString(" " + e.Value)
	}
	b.WriteString(" denied: ")
	switch {
	case e.Reason != "":
		b.WriteString(e.Reason)
	case e.Undeclared:
		fmt.Fprintf(&b, "the skill does not declare it (its skill.toml would need %s = [%s])", e.Kind, strconv.Quote(e.hintValue()))
	default:
		fmt.Fprintf(&b, "not granted (add %s)", FlagFor(e.Kind, e.hintValue()))
	}
	return b.String()
}

// Unwrap returns [ErrDenied].
func (e *DeniedError) Unwrap() error { return ErrDenied }

// hintValue returns the value to suggest granting: Value, except that for
// net it is the host alone, in the form a host pattern takes
// ("api.example.com", "[::1]").
func (e *DeniedError) hintValue() string {
	if e.Kind != "net" {
		return e.Value
	}
	host, port := e.Value, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host, port = host[:i], host[i+1:]
	}
	// The default web ports need no mention; any other port is part of
	// what to grant, or the suggested flag would not grant it.
	if port == "80" || port == "443" {
		port = ""
	}
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	p := HostPattern{Host: strings.ToLower(host)}
	if addr, err := netip.ParseAddr(host); err == nil && addr.Zone() == "" {
		p.Host = addr.Unmap().String()
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err == nil {
			p.Port = n
		}
	}
	return p.String()
}

// CheckRead reports whether the set allows reading p: some Read or Write
// path contains it. Writing implies reading, as [Set.Write] says: a
// writable directory is mounted read-write, and a program cannot
// practically write without reading (os.Create opens for both; creating a
// directory tree stats it first). A path that [ParsePath] would not
// produce, such as one with ".." segments, is always denied.
// It returns nil or a [*DeniedError].
func (s Set) CheckRead(p Path) error {
	if err := p.validate(); err != nil {
		return &DeniedError{Kind: "read", Value: p.String(), Reason: err.Error()}
	}
	if slices.ContainsFunc(s.Read, func(q Path) bool { return q.Contains(p) }) ||
		slices.ContainsFunc(s.Write, func(q Path) bool { return q.Contains(p) }) {
		return nil
	}
	return &DeniedError{Kind: "read", Value: p.String()}
}

// CheckWrite reports whether the set allows writing p: some Write path
// contains it. A path that [ParsePath] would not produce is always denied.
// It returns nil or a [*DeniedError].
func (s Set) CheckWrite(p Path) error {
	if err := p.validate(); err != nil {
		return &DeniedError{Kind: "write", Value: p.String(), Reason: err.Error()}
	}
	if slices.ContainsFunc(s.Write, func(q Path) bool { return q.Contains(p) }) {
		return nil
	}
	return &DeniedError{Kind: "write", Value: p.String()}
}

// CheckEnv reports whether the set allows the script to see the
// environment variable name. Names compare exactly, case included.
// It returns nil or a [*DeniedError].
func (s Set) CheckEnv(name string) error {
	if slices.Contains(s.Env, name) {
		return nil
	}
	return &DeniedError{Kind: "env", Value: name}
}

// CheckNet reports whether the set allows a connection to host:port, as
// [HostPattern.Match] decides. Every redirect hop is a new connection and
// is checked again. The suggested flag names the host without the port.
// It returns nil or a [*DeniedError].
func (s Set) CheckNet(host string, port int) error {
	if slices.ContainsFunc(s.Net, func(p HostPattern) bool { return p.Match(host, port) }) {
		return nil
	}
	return &DeniedError{Kind: "net", Value: hostPort(host, port)}
}

// hostPort joins host and port as a URL authority would: "[::1]:443".
func hostPort(host string, port int) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}

// CheckTool reports whether the set allows calling the host tool name.
// It returns nil or a [*DeniedError].
func (s Set) CheckTool(name string) error {
	if slices.Contains(s.Tools, name) {
		return nil
	}
	return &DeniedError{Kind: "tools", Value: name}
}

// CheckMCP reports whether the set allows calling tool on the MCP server
// server: some MCP pattern is "server/tool" or "server/*". A server or
// tool name that is empty or holds a "/" is always denied.
// It returns nil or a [*DeniedError].
func (s Set) CheckMCP(server, tool string) error {
	value := server + "/" + tool
	if server == "" || tool == "" || strings.Contains(server, "/") || strings.Contains(tool, "/") {
		return &DeniedError{Kind: "mcp", Value: value,
			Reason: `server and tool names must be non-empty and hold no "/"`}
	}
	if slices.Contains(s.MCP, value) || slices.Contains(s.MCP, server+"/*") {
		return nil
	}
	return &DeniedError{Kind: "mcp", Value: value}
}

// CheckSkill reports whether the set allows running the skill name.
// It returns nil or a [*DeniedError].
func (s Set) CheckSkill(name string) error {
	if slices.Contains(s.Skills, name) {
		return nil
	}
	return &DeniedError{Kind: "skills", Value: name}
}
