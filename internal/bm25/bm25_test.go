package bm25

import (
	"math"
	"testing"

	"cmp"

	gocmp "github.com/google/go-cmp/cmp"
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
		if diff := gocmp.Diff(tt.want, Tokenize(tt.in, nil)); diff != "" {
			t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestScores(t *testing.T) {
	ix := New([]float64{3, 1}, []Doc{
		{{"pdf-extract"}, {"Extract text from PDF files."}},
		{{"csv-stats"}, {"Summarise a CSV file; not a pdf tool."}},
		{{"git-log"}, {"Show history."}},
		{}, // no fields at all
	})
	if ix.Len() != 4 {
		t.Fatalf("Len = %d, want 4", ix.Len())
	}
	s := ix.Scores("PDFs")
	if !(s[0] > s[1] && s[1] > 0 && s[2] == 0 && s[3] == 0) {
		t.Errorf("Scores(PDFs) = %v, want name match > description match > 0 = 0", s)
	}
	if a, b := ix.Scores("pdf csv"), ix.Scores("csv pdf pdf"); !gocmp.Equal(a, b) {
		t.Errorf("word order or repetition changed scores: %v, %v", a, b)
	}
	// One score per document, each zero: a loop over an empty result
	// would check nothing.
	unknown := ix.Scores("zzz")
	if len(unknown) != ix.Len() {
		t.Fatalf("Scores(zzz) has %d scores for %d documents: %v", len(unknown), ix.Len(), unknown)
	}
	for _, v := range unknown {
		if v != 0 || math.IsNaN(v) {
			t.Errorf("unknown word scored %v", v)
		}
	}
	if got := Rank(ix.Scores("pdf"), nil, 0); !gocmp.Equal(got, []int{0, 1}) {
		t.Errorf("Rank = %v, want [0 1]", got)
	}
}

func TestEmptyIndex(t *testing.T) {
	ix := New([]float64{1}, nil)
	if got := ix.Scores("anything"); len(got) != 0 {
		t.Errorf("Scores on empty index = %v", got)
	}
}

func TestRegexpScores(t *testing.T) {
	ix := New([]float64{3, 1}, []Doc{
		{{"pdf-extract"}, {"Extract text."}},
		{{"csv-stats"}, {"Not a PDF tool."}},
		{{"Pdf"}, {"pdf"}},
	})
	re, err := CompileRegexp("pdf", 100)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff([]float64{3, 1, 4}, ix.RegexpScores(re)); diff != "" {
		t.Errorf("RegexpScores mismatch (-want +got):\n%s", diff)
	}
	re, _ = CompileRegexp("(?-i)Pdf", 100)
	if diff := gocmp.Diff([]float64{0, 0, 3}, ix.RegexpScores(re)); diff != "" {
		t.Errorf("case-sensitive RegexpScores mismatch (-want +got):\n%s", diff)
	}
	if _, err := CompileRegexp("(bad", 100); err == nil {
		t.Error("CompileRegexp((bad) succeeded")
	}
	if _, err := CompileRegexp("aaaa", 3); err == nil {
		t.Error("CompileRegexp over maxLen succeeded")
	}
}

func TestRank(t *testing.T) {
	scores := []float64{1, 0, 2, 1, 1}
	names := []string{"b", "x", "c", "a", "b"}
	tie := func(i, j int) int { return cmp.Compare(names[i], names[j]) }
	if diff := gocmp.Diff([]int{2, 3, 0, 4}, Rank(scores, tie, -1)); diff != "" {
		t.Errorf("Rank mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]int{2, 3}, Rank(scores, tie, 2)); diff != "" {
		t.Errorf("Rank limit 2 mismatch (-want +got):\n%s", diff)
	}
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
		if diff := gocmp.Diff(tt.want, Glossary(tt.texts...)); diff != "" {
			t.Errorf("Glossary(%q) mismatch (-want +got):\n%s", tt.texts, diff)
		}
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
	if !(s[1] > 0 && s[0] > 0 && s[2] == 0) {
		t.Fatalf("scores %v: want the link and the url documents found, not the bread one", s)
	}
	if math.Abs(s[0]-expandWeight*s[1]) > 1e-9 {
		t.Errorf("the synonym scored %v; want %v × the word's %v", s[0], expandWeight, s[1])
	}
	// A word of the query is never also counted as a synonym of another.
	both := ix.Scores("link url")
	if math.Abs(both[0]-both[1]) > 1e-9 {
		t.Errorf("link url: %v; want the two documents equal", both)
	}
	terms, weights := expand("links URL")
	if diff := gocmp.Diff([]string{"address", "hyperlink", "link", "url"}, terms); diff != "" {
		t.Errorf("expand terms (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]float64{expandWeight, expandWeight, 1, 1}, weights); diff != "" {
		t.Errorf("expand weights (-want +got):\n%s", diff)
	}
}
