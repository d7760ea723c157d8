package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/skills"
)

func searchRegistry(t testing.TB) *Registry {
	t.Helper()
	r := NewRegistry()
	tools, err := CoreTools(t.TempDir(), allGrant())
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if err := r.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	for _, tl := range []*fakeTool{
		withSchema(tool("pdf-extract__run", SourceSkill, "pdf-extract"),
			`{"type":"object","properties":{"file":{"type":"string","description":"The PDF document to read."},"pages":{"type":"string"}}}`, ""),
		withSchema(tool("csv-stats__summarise", SourceSkill, "csv-stats"),
			`{"type":"object","properties":{"delimiter":{"type":"string","description":"Column separator."}}}`, ""),
		tool(MCPToolName("github", "create_issue"), SourceMCP, ""),
	} {
		if err := r.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func matchNames(ms []ToolMatch) []string {
	names := []string{}
	for _, m := range ms {
		names = append(names, m.Definition.Name)
	}
	return names
}

func TestSearch(t *testing.T) {
	r := searchRegistry(t)
	tests := []struct {
		query string
		o     *skills.SearchOptions
		want  []string
	}{
		{"pdf", nil, []string{"pdf-extract__run"}},
		{"issues", nil, []string{"mcp__github__create_issue"}}, // name split on _, plural folded
		{"delimiter", nil, []string{"csv-stats__summarise"}},   // argument name
		{"separator", nil, []string{"csv-stats__summarise"}},   // argument description
		{"document", nil, []string{"pdf-extract__run"}},
		{"workspace", &skills.SearchOptions{Limit: 2}, []string{"workspace_list", "workspace_read"}},
		{"write file", nil, []string{"workspace_write", "workspace_read"}},
		{"nothing-like-this", nil, []string{}},
		{"^workspace_(read|write)$", &skills.SearchOptions{Regex: true}, []string{"workspace_read", "workspace_write"}},
		{"(?-i)PDF", &skills.SearchOptions{Regex: true}, []string{"pdf-extract__run"}},
		{"pages", &skills.SearchOptions{Regex: true}, []string{"pdf-extract__run"}},
	}
	for _, tt := range tests {
		got, err := r.Search(tt.query, tt.o)
		if err != nil {
			t.Fatalf("Search(%q): %v", tt.query, err)
		}
		names := matchNames(got)
		if len(names) > len(tt.want) {
			names = names[:len(tt.want)]
		}
		assert.Equal(t, tt.want, names, "Search(%q)", tt.query)
	}
}

func TestSearchCarriesDefinition(t *testing.T) {
	r := searchRegistry(t)
	got, err := r.Search("pdf", nil)
	if err != nil || len(got) == 0 {
		t.Fatalf("Search = %v, %v", got, err)
	}
	tl, _ := r.Lookup(got[0].Definition.Name)
	assert.Equal(t, tl.Definition(), got[0].Definition, "definition")
	if got[0].Score <= 0 {
		t.Errorf("score %v, want > 0", got[0].Score)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Error(err)
	}
}

func TestSearchErrors(t *testing.T) {
	r := searchRegistry(t)
	if _, err := r.Search(" ", nil); !errors.Is(err, skills.ErrEmptyQuery) {
		t.Errorf("empty query error = %v", err)
	}
	if _, err := r.Search("(bad", &skills.SearchOptions{Regex: true}); err == nil || !strings.Contains(err.Error(), "invalid search regexp") {
		t.Errorf("bad regexp error = %v", err)
	}
	if _, err := r.Search(strings.Repeat("a", maxQueryLen+1), nil); err == nil {
		t.Error("long query accepted")
	}
}

func TestSearchSeesChanges(t *testing.T) {
	r := NewRegistry()
	if got, _ := r.Search("zebra", nil); len(got) != 0 {
		t.Fatalf("empty registry found %v", got)
	}
	if err := r.Add(tool("zebra__run", SourceSkill, "")); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Search("zebra", nil); len(got) != 1 {
		t.Errorf("after Add: %v", matchNames(got))
	}
	r.Remove("zebra__run")
	if got, _ := r.Search("zebra", nil); len(got) != 0 {
		t.Errorf("after Remove: %v", matchNames(got))
	}
}

var benchVocabulary = strings.Fields(`
	pdf docx xlsx csv json yaml markdown html image audio video
	extract convert parse validate render summarize translate generate
	review debug deploy test lint format index search fetch upload
	table chart diagram report invoice email calendar ticket commit branch
	database query schema migration model dataset notebook pipeline cluster
	slack github notion jira vercel docker kubernetes aws azure gcp`)

// benchRegistry returns a registry of n generated tools, the same every
// run: names of 2-3 words, descriptions of 12-30, 1-3 arguments.
func benchRegistry(b *testing.B, n int) *Registry {
	rng := rand.New(rand.NewPCG(1, 2))
	words := func(lo, hi int) []string {
		w := make([]string, lo+rng.IntN(hi-lo+1))
		for i := range w {
			w[i] = benchVocabulary[rng.IntN(len(benchVocabulary))]
		}
		return w
	}
	r := NewRegistry()
	for i := range n {
		props := map[string]any{}
		for _, a := range words(1, 3) {
			props[a] = map[string]string{"type": "string", "description": strings.Join(words(3, 8), " ")}
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		tl := &fakeTool{def: ToolDef{
			Name:        fmt.Sprintf("s%d__%s", i, strings.Join(words(2, 3), "_")),
			Description: "Use this tool to " + strings.Join(words(12, 30), " ") + ".",
			InputSchema: schema,
			Source:      SourceSkill,
		}}
		if err := r.Add(tl); err != nil {
			b.Fatal(err)
		}
	}
	return r
}

const benchQuery = "convert pdf report"

// BenchmarkToolSearch measures Search over 1000 tools against a naive
// baseline in the same run: a strings.Contains scan of lowercased names
// and descriptions for each query word.
func BenchmarkToolSearch(b *testing.B) {
	r := benchRegistry(b, 1000)
	b.Run("BM25", func(b *testing.B) {
		if _, err := r.Search(benchQuery, nil); err != nil { // build the index
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Search(benchQuery, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Regex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Search("convert|pdf|report", &skills.SearchOptions{Regex: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Rebuild", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.Remove("nope__x") // no change: no rebuild
			r.mu.Lock()
			r.gen++ // force a rebuild
			r.mu.Unlock()
			if _, err := r.Search(benchQuery, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NaiveContains", func(b *testing.B) {
		defs := r.List()
		texts := make([]string, len(defs))
		for i, d := range defs {
			texts[i] = strings.ToLower(d.Name + " " + d.Description)
		}
		query := strings.Fields(benchQuery)
		b.ReportAllocs()
		for b.Loop() {
			hits := make([]int, len(texts))
			for _, w := range query {
				for i, s := range texts {
					if strings.Contains(s, w) {
						hits[i]++
					}
				}
			}
		}
	})
}
