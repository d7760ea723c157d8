package skills

import (
	"strings"
	"testing"
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
		if len(probs) != 0 {
			t.Errorf("%q: problems %v", tt.value, probs)
			continue
		}
		sc := m.Scripts["fill"]
		if sc.RequiredAgent != tt.value {
			t.Errorf("%q: RequiredAgent = %q", tt.value, sc.RequiredAgent)
		}
		if got := sc.RequiredAgentIdentity("pdf"); got != tt.identity {
			t.Errorf("%q: identity = %q, want %q", tt.value, got, tt.identity)
		}
	}
	if got := (&Script{}).RequiredAgentIdentity("pdf"); got != "" {
		t.Errorf("no required_agent: identity = %q, want none", got)
	}

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
		if len(probs) != 1 {
			t.Errorf("%q: problems %v, want one", tt.value, probs)
			continue
		}
		p := probs[0]
		if p.Line != 5 || p.Field != "scripts.fill.required_agent" || !strings.Contains(p.Message, tt.want) {
			t.Errorf("%q: problem %+v, want line 5, field scripts.fill.required_agent, %q", tt.value, p, tt.want)
		}
	}

	// A list is the wrong type, reported on its line; a misspelt key is
	// unknown, with a hint.
	_, probs := ParseManifest([]byte("version = 1\n[scripts.fill]\nmodule = \"f.wasm\"\nrequired_agent = [\"a\"]\n"), "pdf/skill.toml")
	if len(probs) != 1 || probs[0].Line != 4 {
		t.Errorf("a list: problems %v, want one on line 4", probs)
	}
	_, probs = ParseManifest([]byte("version = 1\n[scripts.fill]\nmodule = \"f.wasm\"\nrequired_agnet = \"a\"\n"), "pdf/skill.toml")
	if len(probs) != 1 || probs[0].Line != 4 || !strings.Contains(probs[0].Message, "required_agent") {
		t.Errorf("a misspelt key: problems %v, want one on line 4 suggesting required_agent", probs)
	}
}
