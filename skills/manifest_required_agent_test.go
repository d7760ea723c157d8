package skills

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestManifestRequiredAgent: a script may name the only agent allowed to
// call it (issue 11 finding 12): its own skill's agent by default, another
// skill's as SKILL:NAME, the operator's as user:NAME; anything else is an
// error on its line, like every key of skill.toml.
func TestManifestRequiredAgent(t *testing.T) {
	valid := []struct{ value, identity string }{
		{"filler", "pdf:filler"},
		{"forms:filler", "forms:filler"},
		{"user:reviewer", "reviewer"},
		{"form-filler-2", "pdf:form-filler-2"},
	}
	for _, tt := range valid {
		src := "version = 1\n[scripts.fill]\nmodule = \"f.wasm\"\nrequired_agent = \"" + tt.value + "\"\n"
		m, probs := ParseManifest([]byte(src), "pdf/skill.toml")
		if !assert.Empty(t, probs, "%q: problems", tt.value) {
			continue
		}
		sc := m.Scripts["fill"]
		assert.Equal(t, tt.value, sc.RequiredAgent, "%q: RequiredAgent", tt.value)
		assert.Equal(t, tt.identity, sc.RequiredAgentIdentity("pdf"), "%q: identity", tt.value)
	}
	assert.Empty(t, (&Script{}).RequiredAgentIdentity("pdf"), "no required_agent: identity, want none")

	invalid := []struct{ value, want string }{
		{"Filler", "is not an agent name"},
		{"", "is not an agent name"},
		{"pdf:", "is not an agent name"},
		{":filler", "before the colon"},
		{"a:b:c", "is not an agent name"},
		{"PDF:filler", "before the colon"},
		{"fill er", "is not an agent name"},
		{strings.Repeat("a", 129), "the limit is 128"},
	}
	for _, tt := range invalid {
		src := "version = 1\n[scripts.fill]\nmodule = \"f.wasm\"\n\nrequired_agent = \"" + tt.value + "\"\n"
		_, probs := ParseManifest([]byte(src), "pdf/skill.toml")
		if !assert.Len(t, probs, 1, "%q: problems, want one", tt.value) {
			continue
		}
		p := probs[0]
		assert.Equal(t, 5, p.Line, "%q: problem line", tt.value)
		assert.Equal(t, "scripts.fill.required_agent", p.Field, "%q: problem field", tt.value)
		assert.Contains(t, p.Message, tt.want, "%q: problem message", tt.value)
	}

	// A list is the wrong type, reported on its line; a misspelt key is
	// unknown, with a hint.
	_, probs := ParseManifest([]byte("version = 1\n[scripts.fill]\nmodule = \"f.wasm\"\nrequired_agent = [\"a\"]\n"), "pdf/skill.toml")
	if assert.Len(t, probs, 1, "a list: problems, want one on line 4") {
		assert.Equal(t, 4, probs[0].Line, "a list: problem line")
	}
	_, probs = ParseManifest([]byte("version = 1\n[scripts.fill]\nmodule = \"f.wasm\"\nrequired_agnet = \"a\"\n"), "pdf/skill.toml")
	if assert.Len(t, probs, 1, "a misspelt key: problems, want one on line 4 suggesting required_agent") {
		assert.Equal(t, 4, probs[0].Line, "a misspelt key: problem line")
		assert.Contains(t, probs[0].Message, "required_agent", "a misspelt key: want a suggestion")
	}
}
