package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// MaxConfigSize is the largest mcpServers document [ParseConfig] accepts.
const MaxConfigSize = 1 << 20

// serverNameRE is the rule for server names: they become part of tool
// names ("mcp__<server>__<tool>"), which allow only these characters.
var serverNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// A ServerConfig says how to reach one MCP server: either a command run as
// a subprocess that speaks MCP over stdin and stdout, or the URL of a
// streamable HTTP endpoint. Exactly one of Command and URL is set.
//
// A command server's environment is Env plus PATH and HOME from the host,
// nothing else: the host's environment (API keys, tokens) is not passed
// on. Name every variable the server needs in Env.
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
}

var configServerKeys = []string{"command", "args", "env", "url"}

// ParseConfig parses the mcpServers JSON document of Claude Desktop and
// plugin sets:
//
//	{"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}, "other": {"url": "https://..."}}}
//
// It is strict: an unknown key is an error naming it, a server name is 1
// to 64 ASCII letters, digits, '_' or '-', holding no "__" and not ending
// in '_' (see [checkConfigServerName]), each server has exactly one of
// command and url, and data holds at most [MaxConfigSize] bytes. Errors
// about a server give the line of its name in data.
func ParseConfig(data []byte) (map[string]ServerConfig, error) {
	if len(data) > MaxConfigSize {
		return nil, fmt.Errorf("mcp: config is %d bytes, more than the limit of %d", len(data), MaxConfigSize)
	}
	var top map[string]json.RawMessage
	if err := decodeConfigJSON(data, &top); err != nil {
		return nil, fmt.Errorf("mcp: config: %w", err)
	}
	if top == nil {
		return nil, errors.New(`mcp: config: want an object {"mcpServers": {...}}`)
	}
	for k := range top {
		if k != "mcpServers" {
			return nil, fmt.Errorf(`mcp: config: unknown key %q (want only "mcpServers")`, k)
		}
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return nil, errors.New(`mcp: config: no "mcpServers" key`)
	}
	var servers map[string]json.RawMessage
	if err := decodeConfigJSON(raw, &servers); err != nil {
		return nil, fmt.Errorf("mcp: config: mcpServers: %w", err)
	}
	lines := serverLines(data)
	out := make(map[string]ServerConfig, len(servers))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		c, err := parseServer(name, servers[name])
		if err != nil {
			if line := lines[name]; line > 0 {
				err = fmt.Errorf("line %d: %w", line, err)
			}
			errs = append(errs, err)
			continue
		}
		out[name] = c
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func parseServer(name string, raw json.RawMessage) (ServerConfig, error) {
	var c ServerConfig
	if err := checkConfigServerName(name); err != nil {
		return c, err
	}
	var keys map[string]json.RawMessage
	if err := decodeConfigJSON(raw, &keys); err != nil || keys == nil {
		return c, fmt.Errorf("mcp: config: server %q: want an object with command or url", name)
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !slices.Contains(configServerKeys, k) {
			return c, fmt.Errorf("mcp: config: server %q: unknown key %q (known: %s)", name, k, strings.Join(configServerKeys, ", "))
		}
	}
	if err := decodeConfigJSON(raw, &c); err != nil {
		return c, fmt.Errorf("mcp: config: server %q: %w", name, err)
	}
	if err := c.check(name); err != nil {
		return c, err
	}
	return c, nil
}

// checkConfigServerName checks a server name. Besides the characters a
// tool name allows, it refuses "__" and a trailing '_': the server's tools
// are named "mcp__<server>__<tool>", and tool names may hold "__", so
// server "a" with tool "b__c" and server "a__b" with tool "c" would both
// be "mcp__a__b__c" (and "a_" with "b", "a" with "_b" both "mcp__a___b").
// With these names refused, the first "__" after "mcp__" always ends the
// server's name, so every bridged tool name has one reading.
func checkConfigServerName(name string) error {
	switch {
	case !serverNameRE.MatchString(name):
		return fmt.Errorf("mcp: config: invalid server name %q: a name is 1 to 64 ASCII letters, digits, '_' or '-'", name)
	case strings.Contains(name, "__") || strings.HasSuffix(name, "_"):
		return fmt.Errorf(`mcp: config: invalid server name %q: a name must not contain "__" or end in "_", which would make its tools' names (mcp__SERVER__TOOL) ambiguous; rename it, e.g. %q`,
			name, suggestServerName(name))
	}
	return nil
}

// suggestServerName is name with "__" made "-" and no '_' or '-' at the
// end, for an error message.
func suggestServerName(name string) string {
	if s := strings.TrimRight(strings.ReplaceAll(name, "__", "-"), "_-"); s != "" {
		return s
	}
	return "server"
}

// serverLines returns the 1-based line of each server's name in the
// mcpServers object of data, as far as data can be read as JSON.
func serverLines(data []byte) map[string]int {
	lines := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	line := func() int { return bytes.Count(data[:dec.InputOffset()], []byte("\n")) + 1 }
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return lines
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return lines
		}
		if key != "mcpServers" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return lines
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return lines
		}
		for dec.More() {
			name, err := dec.Token()
			if err != nil {
				return lines
			}
			if s, ok := name.(string); ok {
				if _, seen := lines[s]; !seen {
					lines[s] = line()
				}
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return lines
			}
		}
		return lines
	}
	return lines
}

// check validates c, the config of server name.
func (c *ServerConfig) check(name string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("mcp: config: server %q: %s", name, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Command == "" && c.URL == "":
		return bad("set command or url")
	case c.Command != "" && c.URL != "":
		return bad("set command or url, not both")
	}
	if c.URL != "" {
		if len(c.Args) > 0 || len(c.Env) > 0 {
			return bad("args and env apply only to a command server")
		}
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("url %q is not an http or https URL", c.URL)
		}
		return nil
	}
	if strings.ContainsRune(c.Command, 0) {
		return bad("command holds a NUL byte")
	}
	for _, a := range c.Args {
		if strings.ContainsRune(a, 0) {
			return bad("an argument holds a NUL byte")
		}
	}
	for k, v := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return bad("invalid environment variable %q", k)
		}
	}
	return nil
}

// decodeConfigJSON decodes one JSON value from data into v, refusing unknown
// fields and trailing data.
func decodeConfigJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON value")
	}
	return nil
}
