package skills

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPromptEmpty(t *testing.T) {
	assert.Equal(t, "<available_skills>\n</available_skills>", Prompt(nil))
	var b bytes.Buffer
	require.NoError(t, WritePrompt(&b, nil))
	assert.Equal(t, "<available_skills>\n</available_skills>\n", b.String())
}

// TestPromptMatchesReference pins the exact bytes skills-ref to-prompt
// prints for two skills, one with every character html.escape rewrites.
func TestPromptMatchesReference(t *testing.T) {
	base := t.TempDir()
	a := testkit.WriteTree(t, filepath.Join(base, "pdf"), map[string]string{
		"SKILL.md": "---\nname: pdf\ndescription: \"Read & fill <PDF> forms; say \\\"hi\\\" to Bob's files.\"\n---\nbody\n",
	})
	b := testkit.WriteTree(t, filepath.Join(base, "csv"), map[string]string{
		"SKILL.md": "---\nname: csv\ndescription: |\n  Two\n  lines\n---\n",
	})
	var list []*Skill
	for _, d := range []string{a, b} {
		s, err := LoadDir(d, nil)
		require.NoError(t, err)
		list = append(list, s)
	}
	real, err := filepath.EvalSymlinks(base)
	require.NoError(t, err)
	want := "<available_skills>\n" +
		"<skill>\n<name>\npdf\n</name>\n<description>\n" +
		"Read &amp; fill &lt;PDF&gt; forms; say &quot;hi&quot; to Bob&#x27;s files.\n" +
		"</description>\n<location>\n" + real + "/pdf/SKILL.md\n</location>\n</skill>\n" +
		"<skill>\n<name>\ncsv\n</name>\n<description>\nTwo\nlines\n</description>\n<location>\n" +
		real + "/csv/SKILL.md\n</location>\n</skill>\n" +
		"</available_skills>"
	assert.Equal(t, want, Prompt(list))
}

func TestCatalogEntries(t *testing.T) {
	s := &Skill{Name: "pdf", Description: "Read PDFs.", Location: "/s/pdf/SKILL.md"}
	got := Catalog([]*Skill{s})
	require.Len(t, got, 1)
	assert.Equal(t, "pdf", got[0].Name)
	assert.Equal(t, "/s/pdf/SKILL.md", got[0].Location)
	// The entry renders as 115 characters: (115+3)/4 = 29 tokens.
	assert.Equal(t, 115, len(promptEntry(s)))
	assert.Equal(t, 29, got[0].Tokens)
}

func TestEstimateTokens(t *testing.T) {
	assert.Equal(t, 0, estimateTokens(""))
	assert.Equal(t, 1, estimateTokens("abcd"))
	assert.Equal(t, 2, estimateTokens("abcde"))
	assert.Equal(t, 1, estimateTokens("éééé"), "counted in characters, not bytes")
}
