package capabilities

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
)

// FuzzPolicyRoundTrip parses arbitrary policy files (an operator's file,
// but often copied from a stranger's README) and checks that what parses
// means the same after being written out again: formatting each skill's
// effective grant as a policy and parsing that gives every skill the same
// grant. FuzzParsePolicy (policy_test.go) checks the sets are valid; this
// checks nothing is lost or invented between the TOML and the [Set].
func FuzzPolicyRoundTrip(f *testing.F) {
	files, _ := filepath.Glob("testdata/policy/*.toml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{
		"[default]\nread = [\"workspace\"]\ntimeout = \"30s\"\n[skills.\"csv-stats\"]\nwrite = [\"workspace/out\"]\nnet = []\n",
		"[default]\nnet = [\"*\", \"127.0.0.1:18081\", \"[::1]:443\", \"*.example.com\"]\nenv = [\"LANG\"]\n",
		"[skills.a]\nmemory = \"16MiB\"\noutput = \"1KiB\"\ntools = [\"workspace_read\"]\nmcp = [\"gh/*\"]\nskills = [\"b\"]\n",
		"[default]\nread = [\"skill/references\", \"workspace/a/../b\"]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy(data, "p.toml")
		if err != nil {
			return
		}
		names := []string{"never-named-in-the-policy"}
		for name := range p.Skills {
			names = append(names, name)
		}
		text := formatPolicy(t, p, names)
		p2, err := ParsePolicy(text, "again.toml")
		require.NoError(t, err, "policy %q parsed, but its formatted form does not:\n%s", data, text)
		for _, name := range names {
			require.Equal(t, nilEmpty(p.For(name)), nilEmpty(p2.For(name)), "grant of %q changed by a round trip\npolicy:\n%s\nformatted:\n%s", name, data, text)
		}
	})
}

// nilEmpty returns s with its empty lists nil: for the round trip, no
// list and an empty one grant the same.
func nilEmpty(s Set) Set {
	s.Read, s.Write, s.Net = emptyNil(s.Read), emptyNil(s.Write), emptyNil(s.Net)
	s.Env, s.Tools, s.MCP, s.Skills = emptyNil(s.Env), emptyNil(s.Tools), emptyNil(s.MCP), emptyNil(s.Skills)
	return s
}

func emptyNil[T any](l []T) []T {
	if len(l) == 0 {
		return nil
	}
	return l
}

// formatPolicy writes p as a policy file in which every skill's table sets
// every list key (an empty list withdraws the default), so the file means
// exactly p.For for each of names.
func formatPolicy(t *testing.T, p *Policy, names []string) []byte {
	t.Helper()
	doc := map[string]any{"default": setTable(p.Default)}
	skills := map[string]any{}
	for _, name := range names[1:] {
		skills[name] = setTable(p.For(name))
	}
	if len(skills) > 0 {
		doc["skills"] = skills
	}
	var b bytes.Buffer
	require.NoError(t, toml.NewEncoder(&b).Encode(doc), "encoding the parsed policy")
	return b.Bytes()
}

func setTable(s Set) map[string]any {
	text := func(n int, at func(int) string) []string {
		out := make([]string, 0, n)
		for i := range n {
			out = append(out, at(i))
		}
		return out
	}
	m := map[string]any{
		"read":   text(len(s.Read), func(i int) string { return s.Read[i].String() }),
		"write":  text(len(s.Write), func(i int) string { return s.Write[i].String() }),
		"net":    text(len(s.Net), func(i int) string { return s.Net[i].String() }),
		"env":    append([]string{}, s.Env...),
		"tools":  append([]string{}, s.Tools...),
		"mcp":    append([]string{}, s.MCP...),
		"skills": append([]string{}, s.Skills...),
	}
	if s.Memory != 0 {
		m["memory"] = s.Memory.String()
	}
	if s.Timeout != 0 {
		m["timeout"] = s.Timeout.String()
	}
	if s.Output != 0 {
		m["output"] = s.Output.String()
	}
	return m
}
