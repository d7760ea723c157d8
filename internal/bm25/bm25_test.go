package bm25

import (
	"cmp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"workspace_read", []string{"workspac", "read"}},
		{"mcp__github__create_issues", []string{"mcp", "github", "creat", "issu"}},
		{"creating created creates", []string{"creat", "creat", "creat"}},
		{"PDFs CSVs GIFs APIs", []string{"pdf", "csv", "gif", "api"}},
		{"diagramming diagrams", []string{"diagram", "diagram"}},
		{"Use this when the user asks for a PDF.", []string{"user", "ask", "pdf"}},
		{"process class", []string{"process", "class"}},
		{"donne\u0301es", []string{"donnée"}},
		{"  ...  ", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Tokenize(tt.in, nil), "Tokenize(%q)", tt.in)
	}
}

func TestScores(t *testing.T) {
	ix := New([]float64{3, 1}, []Doc{
		{{"pdf-extract"}, {"Extract text from PDF files."}},
		{{"csv-stats"}, {"Summarise a CSV file; not a pdf tool."}},
		{{"git-log"}, {"Show history."}},
		{}, // no fields at all
	})
	require.Equal(t, 4, ix.Len(), "Len")
	s := ix.Scores("PDFs")
	const want = "Scores(PDFs) = %v, want name match > description match > 0 = 0"
	assert.Greater(t, s[0], s[1], want, s)
	assert.Positive(t, s[1], want, s)
	assert.Zero(t, s[2], want, s)
	assert.Zero(t, s[3], want, s)
	assert.Equal(t, ix.Scores("pdf csv"), ix.Scores("csv pdf pdf"), "word order or repetition changed scores")
	// One score per document, each zero: a loop over an empty result
	// would check nothing.
	unknown := ix.Scores("zzz")
	require.Len(t, unknown, ix.Len(), "Scores(zzz): one score per document")
	for _, v := range unknown {
		assert.Zero(t, v, "unknown word scored") // NaN is not zero either
	}
	assert.Equal(t, []int{0, 1}, Rank(ix.Scores("pdf"), nil, 0), "Rank")
}

func TestEmptyIndex(t *testing.T) {
	ix := New([]float64{1}, nil)
	assert.Empty(t, ix.Scores("anything"), "Scores on empty index")
}

func TestRegexpScores(t *testing.T) {
	ix := New([]float64{3, 1}, []Doc{
		{{"pdf-extract"}, {"Extract text."}},
		{{"csv-stats"}, {"Not a PDF tool."}},
		{{"Pdf"}, {"pdf"}},
	})
	re, err := CompileRegexp("pdf", 100)
	require.NoError(t, err)
	assert.Equal(t, []float64{3, 1, 4}, ix.RegexpScores(re), "RegexpScores")
	re, _ = CompileRegexp("(?-i)Pdf", 100)
	assert.Equal(t, []float64{0, 0, 3}, ix.RegexpScores(re), "case-sensitive RegexpScores")
	_, err = CompileRegexp("(bad", 100)
	assert.Error(t, err, "CompileRegexp((bad) succeeded")
	_, err = CompileRegexp("aaaa", 3)
	assert.Error(t, err, "CompileRegexp over maxLen succeeded")
}

func TestRank(t *testing.T) {
	scores := []float64{1, 0, 2, 1, 1}
	names := []string{"b", "x", "c", "a", "b"}
	tie := func(i, j int) int { return cmp.Compare(names[i], names[j]) }
	assert.Equal(t, []int{2, 3, 0, 4}, Rank(scores, tie, -1), "Rank")
	assert.Equal(t, []int{2, 3}, Rank(scores, tie, 2), "Rank limit 2")
}

func TestGlossary(t *testing.T) {
	tests := []struct {
		texts []string
		want  []string
	}{
		{[]string{"tinyurl-automation", "Automate Tinyurl tasks."}, []string{services["tinyurl"]}},
		// Two words written apart, and the order first named; a word that
		// is a service on its own ("Docker") counts as well.
		{[]string{"Sync Google Calendar with Docker Hub"}, []string{services["googlecalendar"], services["docker"], services["dockerhub"]}},
		{[]string{"xero", "XERO and Xero again"}, []string{services["xero"]}},
		// Words that are also products' names in other contexts are not
		// in the glossary; unknown words give nothing.
		{[]string{"a linear model in a bounding box"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Glossary(tt.texts...), "Glossary(%q)", tt.texts)
	}
}

// TestSynonyms: a query word finds a document that says it another way,
// at half the score of the word itself, so the document using the
// query's own word ranks first.
func TestSynonyms(t *testing.T) {
	ix := New([]float64{1}, []Doc{
		{{"shorten a long url"}},
		{{"shorten a long link"}},
		{{"bake bread"}},
	})
	s := ix.Scores("link")
	const found = "scores %v: want the link and the url documents found, not the bread one"
	require.Positive(t, s[1], found, s)
	require.Positive(t, s[0], found, s)
	require.Zero(t, s[2], found, s)
	assert.InDelta(t, expandWeight*s[1], s[0], 1e-9, "the synonym's score; want %v × the word's %v", expandWeight, s[1])
	// A word of the query is never also counted as a synonym of another.
	both := ix.Scores("link url")
	assert.InDelta(t, both[1], both[0], 1e-9, "link url: %v; want the two documents equal", both)
	terms, weights := expand("links URL")
	assert.Equal(t, []string{"address", "hyperlink", "link", "url"}, terms, "expand terms")
	assert.Equal(t, []float64{expandWeight, expandWeight, 1, 1}, weights, "expand weights")
}
