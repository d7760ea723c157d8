package skills

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// searchSkills is a small hand-made set, each skill there to test one rule.
func searchSkills() []*Skill {
	return []*Skill{
		{Name: "pdf-extract", Description: "Extract text and tables from scanned documents."},
		{Name: "docx-writer", Description: "Create and edit Word documents, including ones converted from PDF."},
		{Name: "mermaid-diagrams", Description: "Draw flowcharts and sequence charts as Mermaid code."},
		{Name: "git-worktrees", Description: "Work on several branches at once, each in its own directory.",
			Manifest: &Manifest{Triggers: []string{"checkout", "parallel branches"}}},
		{Name: "nettoyage-csv", Description: "Nettoyer et valider des données tabulaires (CSV, Excel)."},
		{Name: "release-notes", Description: "Write release notes from the commits since the last tag.",
			Manifest: &Manifest{Triggers: []string{"semver", "changelog"}}},
		{Name: "slack-gif", Description: "Make animated GIFs sized for Slack."},
		{Name: "web-screenshot", Description: "Capture screenshots of web pages with a headless browser.",
			Manifest: &Manifest{Triggers: []string{"playwright"}}},
	}
}

func resultNames(rs []Match) []string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return names
}

func TestIndexSearch(t *testing.T) {
	ix := NewIndex(searchSkills())
	tests := []struct {
		name, query string
		want        []string
	}{
		{"name match outranks description-only match", "pdf", []string{"pdf-extract", "docx-writer"}},
		{"case and punctuation do not matter", "PDF-Extract!", []string{"pdf-extract", "docx-writer"}},
		{"hyphenated name splits into words", "worktrees", []string{"git-worktrees"}},
		{"trigger finds skill whose description lacks it", "semver", []string{"release-notes"}},
		{"multi-word trigger", "parallel", []string{"git-worktrees"}},
		{"word in a trigger and the description", "branches", []string{"git-worktrees"}},
		{"several words", "notes commits", []string{"release-notes"}},
		{"plural stemming", "diagram", []string{"mermaid-diagrams"}},
		{"plural stemming in the query", "screenshot gif", []string{"slack-gif", "web-screenshot"}},
		{"Unicode word", "données", []string{"nettoyage-csv"}},
		{"Unicode word, upper case", "DONNÉES", []string{"nettoyage-csv"}},
		{"Unicode word, decomposed form", "donne\u0301es", []string{"nettoyage-csv"}},
		{"stopwords only", "the and of when to use this", []string{}},
		{"unknown words", "kubernetes helm", []string{}},
		{"stopwords do not match", "from the", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.Search(tt.query, nil)
			require.NoError(t, err, "Search(%q)", tt.query)
			assert.Equal(t, tt.want, resultNames(got), "Search(%q)", tt.query)
			for i, r := range got {
				assert.Positive(t, r.Score, "Search(%q)[%d].Score", tt.query, i)
				if i > 0 {
					assert.LessOrEqual(t, r.Score, got[i-1].Score, "Search(%q): scores not descending: %v", tt.query, got)
				}
				if assert.NotNil(t, r.Skill, "Search(%q)[%d].Skill", tt.query, i) {
					assert.Equal(t, r.Name, r.Skill.Name, "Search(%q)[%d]: Result does not match its Skill", tt.query, i)
					assert.Equal(t, r.Description, r.Skill.Description, "Search(%q)[%d]: Result does not match its Skill", tt.query, i)
				}
			}
		})
	}
}

// TestIndexSearchFieldWeights checks that the weights do their work where
// length normalization alone would rank the other way: a word once in a
// long name against once in a short description.
func TestIndexSearchFieldWeights(t *testing.T) {
	ix := NewIndex([]*Skill{
		{Name: "summarizer", Description: "Summarize a PDF."},
		{Name: "report-pdf-builder-kit", Description: "Builds reports."},
	})
	got, err := ix.Search("pdf", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"report-pdf-builder-kit", "summarizer"}, resultNames(got))
}

func TestIndexSearchEmptyQuery(t *testing.T) {
	ix := NewIndex(searchSkills())
	for _, q := range []string{"", "  \t\n"} {
		for _, o := range []*SearchOptions{nil, {Regex: true}} {
			_, err := ix.Search(q, o)
			assert.ErrorIs(t, err, ErrEmptyQuery, "Search(%q, %+v)", q, o)
		}
	}
}

func TestIndexSearchTies(t *testing.T) {
	// Equal scores order by name, then by the order given to NewIndex.
	first, second := &Skill{Name: "dup", Description: "Resize images."}, &Skill{Name: "dup", Description: "Resize images."}
	ix := NewIndex([]*Skill{
		{Name: "zz-tool", Description: "Resize images."},
		first,
		{Name: "aa-tool", Description: "Resize images."},
		second,
	})
	for range 3 {
		got, err := ix.Search("resize", nil)
		require.NoError(t, err)
		require.Equal(t, []string{"aa-tool", "dup", "dup", "zz-tool"}, resultNames(got))
		assert.Same(t, first, got[1].Skill, "equal names not in NewIndex order")
		assert.Same(t, second, got[2].Skill, "equal names not in NewIndex order")
		assert.Equal(t, got[0].Score, got[3].Score, "scores differ for identical skills")
	}
}

func TestIndexSearchWordOrder(t *testing.T) {
	ix := NewIndex(searchSkills())
	a, _ := ix.Search("pdf word documents", nil)
	b, _ := ix.Search("documents PDF word word", nil)
	assert.Equal(t, a, b, "word order or repetition changed results")
	if assert.Len(t, b, len(a), "word order or repetition changed results") {
		for i := range a {
			assert.Same(t, a[i].Skill, b[i].Skill, "word order or repetition changed result %d's skill", i)
		}
	}
}

func TestIndexSearchLimit(t *testing.T) {
	var many []*Skill
	for i := range 25 {
		many = append(many, &Skill{Name: fmt.Sprintf("tool-%02d", i), Description: "A handy tool."})
	}
	ix := NewIndex(many)
	tests := []struct {
		limit, want int
	}{
		{0, DefaultSearchLimit},
		{1, 1},
		{7, 7},
		{25, 25},
		{100, 25},
		{-1, 25},
	}
	for _, tt := range tests {
		got, err := ix.Search("handy", &SearchOptions{Limit: tt.limit})
		require.NoError(t, err)
		assert.Len(t, got, tt.want, "Limit %d: results", tt.limit)
		if len(got) > 0 {
			assert.Equal(t, "tool-00", got[0].Name, "Limit %d: first result", tt.limit)
		}
	}
}

func TestIndexSearchRegex(t *testing.T) {
	ix := NewIndex(searchSkills())
	tests := []struct {
		name, query string
		want        []string
		scores      []float64
	}{
		// name 3 + description 1, then description only.
		{"name, then description", "pdf", []string{"pdf-extract", "docx-writer"}, []float64{3, 1}},
		{"name and description", "extract", []string{"pdf-extract"}, []float64{4}},
		{"case-insensitive by default", "PDF", []string{"pdf-extract", "docx-writer"}, []float64{3, 1}},
		{"(?-i) makes case matter", "(?-i)PDF", []string{"docx-writer"}, []float64{1}},
		{"(?-i) later in the pattern", "(?-i:Mermaid) code", []string{"mermaid-diagrams"}, []float64{1}},
		{"(?-i) no match", "(?-i)MERMAID", []string{}, []float64{}},
		{"anchored to the name", "^pdf-", []string{"pdf-extract"}, []float64{3}},
		{"each trigger matched alone", "^semver$", []string{"release-notes"}, []float64{2}},
		{"all three fields", "^(git|parallel|work)", []string{"git-worktrees"}, []float64{6}},
		{"Unicode", `donn[ée]es`, []string{"nettoyage-csv"}, []float64{1}},
		{"no match", "kubernetes", []string{}, []float64{}},
		{"stopwords are not special", "^the$", []string{}, []float64{}},
		{"regexp syntax is not a word query", "pdf extract", []string{}, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.Search(tt.query, &SearchOptions{Regex: true})
			require.NoError(t, err, "Search(%q)", tt.query)
			assert.Equal(t, tt.want, resultNames(got), "Search(%q)", tt.query)
			scores := make([]float64, len(got))
			for i, r := range got {
				scores[i] = r.Score
			}
			assert.Equal(t, tt.scores, scores, "Search(%q) scores", tt.query)
		})
	}
}

func TestIndexSearchRegexErrors(t *testing.T) {
	ix := NewIndex(searchSkills())
	tests := []struct {
		query string
		want  []string // substrings of the error
	}{
		{"(pdf", []string{`"(pdf"`, "missing closing )"}},
		{"a**", []string{`"a**"`, "invalid nested repetition operator"}},
		{`\p{Nope}`, []string{"invalid character class range"}},
		{strings.Repeat("a", maxRegexpLen+1), []string{"1025 bytes", "1024-byte limit"}},
	}
	for _, tt := range tests {
		_, err := ix.Search(tt.query, &SearchOptions{Regex: true})
		if !assert.Error(t, err, "Search(%.20q)", tt.query) {
			continue
		}
		for _, w := range tt.want {
			assert.ErrorContains(t, err, w, "Search(%.20q)", tt.query)
		}
		assert.NotContains(t, err.Error(), "(?i)", "Search(%.20q) error shows the internal (?i) prefix", tt.query)
	}
	// At the limit is fine, and the same text is a harmless word query.
	long := strings.Repeat("a", maxRegexpLen)
	_, err := ix.Search(long, &SearchOptions{Regex: true})
	assert.NoError(t, err, "regexp of %d bytes", maxRegexpLen)
	_, err = ix.Search("(pdf", nil)
	assert.NoError(t, err, "word query %q", "(pdf")
}

func TestNewIndexEdgeCases(t *testing.T) {
	for _, skills := range [][]*Skill{nil, {}, {nil}} {
		got, err := NewIndex(skills).Search("pdf", nil)
		assert.NoError(t, err, "NewIndex(%v).Search", skills)
		assert.NotNil(t, got, "NewIndex(%v).Search: want empty non-nil", skills)
		assert.Empty(t, got, "NewIndex(%v).Search: want empty non-nil", skills)
	}
	// A nil entry is skipped; the caller's slice may change afterwards.
	skills := append(searchSkills(), nil)
	ix := NewIndex(skills)
	skills[0] = &Skill{Name: "other", Description: "Nothing."}
	got, _ := ix.Search("pdf", nil)
	assert.Equal(t, []string{"pdf-extract", "docx-writer"}, resultNames(got))
}

func TestResultJSON(t *testing.T) {
	r := Match{Name: "pdf-extract", Description: "Extract text.", Score: 1.5, Skill: &Skill{Name: "pdf-extract"}}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"pdf-extract","description":"Extract text.","score":1.5}`, string(b), "json")
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"pdf-extract", []string{"pdf", "extract"}},
		{"zoho_books-automation", []string{"zoho", "book", "autom"}},
		{"Use this when the user asks for a PDF.", []string{"user", "ask", "pdf"}},
		{"Diagrams, charts & TABLES", []string{"diagram", "chart", "tabl"}},
		{"process class gas bus", []string{"process", "class", "gas", "bus"}}, // "ss", and 3 letters or fewer, keep their s
		{"v2 API, 3D models", []string{"v2", "api", "3d", "model"}},
		{"données", []string{"donnée"}},
		{"donne\u0301es", []string{"donnée"}},            // NFD folds to the same word
		{"ｆｕｌｌｗｉｄｔｈ ﬁle", []string{"fullwidth", "file"}}, // NFKC
		{"Ünïcödé ΣΟΦΊΑ", []string{"ünïcödé", "σοφία"}},
		{"हिन्दी पाठ", []string{"हिन्दी", "पाठ"}}, // combining vowel signs stay inside words
		{"  ...  ", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tokenize(tt.in, nil), "tokenize(%q)", tt.in)
	}
}

// TestIndexSearchConcurrent hammers one Index from several goroutines; run
// it with -race.
func TestIndexSearchConcurrent(t *testing.T) {
	ix := NewIndex(searchSkills())
	queries := []struct {
		q string
		o *SearchOptions
	}{
		{"pdf", nil},
		{"semver changelog", &SearchOptions{Limit: 1}},
		{"données", nil},
		{"^(git|pdf)", &SearchOptions{Regex: true}},
		{"(bad", &SearchOptions{Regex: true}},
	}
	want := make([][]string, len(queries))
	for i, q := range queries {
		rs, _ := ix.Search(q.q, q.o)
		want[i] = resultNames(rs)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 200 {
				i := (g + n) % len(queries)
				rs, _ := ix.Search(queries[i].q, queries[i].o)
				if !assert.Equal(t, want[i], resultNames(rs), "goroutine %d: Search(%q)", g, queries[i].q) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestIndexSearchCorpus searches the real-world SKILL.md files in
// ../shared/corpus, with queries whose right answer is not in doubt.
func TestIndexSearchCorpus(t *testing.T) {
	requireCorpus(t)
	files, err := filepath.Glob(filepath.Join(corpusDir, "*", "*", "SKILL.md"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no SKILL.md in %s", corpusDir)
	var skills []*Skill
	for _, f := range files {
		s, err := LoadDir(filepath.Dir(f), nil)
		if err != nil {
			continue // some corpus files are invalid on purpose
		}
		skills = append(skills, s)
	}
	require.GreaterOrEqual(t, len(skills), 100, "loaded only %d of %d corpus skills", len(skills), len(files))
	ix := NewIndex(skills)
	tests := []struct{ query, want string }{
		{"git worktree", "using-git-worktrees"},
		{"mermaid diagram", "markdown-mermaid-writing"},
		{"molecular dynamics simulation", "molecular-dynamics"},
		{"fix failing CI on GitHub", "gh-fix-ci"},
		{"test driven development", "test-driven-development"},
		{"zotero", "pyzotero"},
		{"latex posters", "latex-posters"},
		{"notion meeting notes", "notion-meeting-intelligence"},
		{"deploy to vercel", "deploy-to-vercel"},
	}
	for _, tt := range tests {
		got, err := ix.Search(tt.query, &SearchOptions{Limit: 3})
		require.NoError(t, err, "Search(%q)", tt.query)
		if assert.NotEmpty(t, got, "Search(%q)", tt.query) {
			assert.Equal(t, tt.want, got[0].Name, "Search(%q) = %v: first", tt.query, resultNames(got))
		}
	}
	t.Logf("corpus: %d of %d skills indexed", len(skills), len(files))
}
