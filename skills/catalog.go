package skills

import (
	"io"
	"strings"
	"unicode/utf8"
)

// A CatalogEntry is level 1 of progressive disclosure: what a model sees of
// a skill before it chooses to activate it.
type CatalogEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Location is the absolute path of SKILL.md (or its path in a zip or
	// fs.FS).
	Location string `json:"location"`
	// Tokens estimates what the entry costs in a prompt, at four
	// characters a token: the usual rule of thumb for English text with
	// BPE tokenizers. It is for budgeting, not billing.
	Tokens int `json:"tokens"`
	// Scripts are what `skillrun run` can run of the skill
	// ([Skill.RunnableScripts]): skill.toml's, then its script files.
	Scripts []string `json:"scripts,omitempty"`
}

// Catalog returns the level-1 entries of skills, in the given order.
func Catalog(skills []*Skill) []CatalogEntry {
	out := make([]CatalogEntry, len(skills))
	for i, s := range skills {
		out[i] = CatalogEntry{
			Name:        s.Name,
			Description: s.Description,
			Location:    s.Location,
			Tokens:      estimateTokens(promptEntry(s)),
			Scripts:     s.RunnableScripts(),
		}
	}
	return out
}

// estimateTokens estimates the tokens of text as one per four characters,
// rounded up.
func estimateTokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// Prompt renders the <available_skills> block for a system prompt,
// byte-identical to the reference implementation's to-prompt (skills-ref):
// every tag and value on its own line, no indentation, values escaped as
// Python's html.escape does, and no trailing newline.
func Prompt(skills []*Skill) string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, s := range skills {
		b.WriteString(promptEntry(s))
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// WritePrompt writes [Prompt] followed by a newline, as the reference CLI
// prints it.
func WritePrompt(w io.Writer, skills []*Skill) error {
	_, err := io.WriteString(w, Prompt(skills)+"\n")
	return err
}

func promptEntry(s *Skill) string {
	return "<skill>\n<name>\n" + htmlEscape(s.Name) + "\n</name>\n<description>\n" +
		htmlEscape(s.Description) + "\n</description>\n<location>\n" +
		htmlEscape(s.Location) + "\n</location>\n</skill>\n"
}

// pyHTMLEscaper matches Python's html.escape(s, quote=True). Go's
// html.EscapeString writes &#39; and &#34; instead of &#x27; and &quot;.
var pyHTMLEscaper = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&quot;",
	"'", "&#x27;",
)

func htmlEscape(s string) string { return pyHTMLEscaper.Replace(s) }
