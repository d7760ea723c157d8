package agent

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// FuzzParseDefinition feeds arbitrary agent definitions (a skill's
// agents/*.md comes from its author) to the parser. It must not panic;
// every failure is one or more *DefinitionError naming the file; and a
// definition that parses keeps the promises of its fields and means the
// same when written out again and parsed (format, then parse, round-trips).
func FuzzParseDefinition(f *testing.F) {
	for _, s := range []string{
		"---\nname: reviewer\ndescription: Reviews.\nmodel: claude-sonnet-4-5\ntemperature: 0.2\nreasoning_effort: high\ntools:\n  - workspace_read\n  - workspace_list\n---\n\nYou review.\n",
		"---\nname: a\n---\n",
		"---\nname: a\ntools: x, y z\n---\nbody\n---\nmore\n",
		"---\nname: a\ntools: []\ntemperature: 2\n---\n",
		"---\nname: a\ntemperature: .nan\n---\n",
		"---\nname: &x a\ndescription: *x\n---\n",
		"\xef\xbb\xbf---\r\nname: a\r\n---\r\nprompt\r\n",
		"---\nname: a\ntools: [!!str x]\n---\n",
		"---\n" + strings.Repeat("[", 40) + "\n---\n",
	} {
		f.Add([]byte(s), uint8(SourceUser))
	}
	f.Fuzz(func(t *testing.T, data []byte, src uint8) {
		source, plugin := Source(src%3), ""
		if source == SourcePlugin {
			plugin = "pack"
		}
		const file = "agents/fuzz.md"
		d, err := ParseDefinition(data, file, source, plugin)
		if err != nil {
			checkDefinitionErrors(t, err, file)
			return
		}
		if !namePattern.MatchString(d.Name) || len(d.Name) > maxNameLength {
			t.Fatalf("accepted name %q", d.Name)
		}
		if d.Temperature != nil && !(*d.Temperature >= 0 && *d.Temperature <= 2) {
			t.Fatalf("accepted temperature %v", *d.Temperature)
		}
		if len(d.Tools) > maxTools || len(d.Description) > maxDescriptionLength {
			t.Fatalf("accepted %d tools, a description of %d bytes", len(d.Tools), len(d.Description))
		}
		if d.Source != source || d.Plugin != plugin || d.File != file {
			t.Fatalf("origin %v %q %q, want %v %q %q", d.Source, d.Plugin, d.File, source, plugin, file)
		}
		text := formatDefinition(t, d)
		d2, err := ParseDefinition(text, file, source, plugin)
		if err != nil {
			t.Fatalf("definition %q parsed, but its formatted form does not: %v\n%s", data, err, text)
		}
		require.Equal(t, d, d2, "round trip changed the definition (-first +second):\n%s\ninput:\n%q\nformatted:\n", data, text)
	})
}

// checkDefinitionErrors checks that err is one *DefinitionError, or
// several joined, each naming file.
func checkDefinitionErrors(t *testing.T, err error, file string) {
	t.Helper()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	if len(errs) == 0 {
		t.Fatalf("empty joined error %v", err)
	}
	for _, e := range errs {
		de, ok := errors.AsType[*DefinitionError](e)
		if !ok || de.File != file || de.Message == "" || de.Line < 0 {
			t.Fatalf("error %#v (%v) is not a *DefinitionError naming %s", e, e, file)
		}
	}
}

// formatDefinition writes d as a definition file, the way an author would.
func formatDefinition(t *testing.T, d *Definition) []byte {
	t.Helper()
	var fm yaml.Node
	fm.Kind = yaml.MappingNode
	add := func(key string, v *yaml.Node) {
		fm.Content = append(fm.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
	str := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	}
	add("name", str(d.Name))
	if d.Description != "" {
		add("description", str(d.Description))
	}
	if d.Model != "" {
		add("model", str(d.Model))
	}
	if d.Temperature != nil {
		add("temperature", &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(*d.Temperature, 'g', -1, 64)})
	}
	if d.ReasoningEffort != "" {
		add("reasoning_effort", str(d.ReasoningEffort))
	}
	if d.Tools != nil {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, tool := range d.Tools {
			seq.Content = append(seq.Content, str(tool))
		}
		add("tools", seq)
	}
	b, err := yaml.Marshal(&fm)
	if err != nil {
		t.Fatalf("encoding the frontmatter: %v", err)
	}
	return []byte("---\n" + string(b) + "---\n" + d.Prompt + "\n")
}
