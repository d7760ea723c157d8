package skills

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/internal/bm25"
)

// DefaultSearchLimit is the number of results Search returns when
// SearchOptions.Limit is zero.
const DefaultSearchLimit = 10

// maxRegexpLen bounds a regular-expression query in bytes. The query is
// untrusted input (it may come from a model or an MCP client), so its size
// is bounded; its running time needs no bound beyond that, because Go's
// regexp (RE2) matches in time linear in the input and never backtracks.
const maxRegexpLen = 1 << 10

// ErrEmptyQuery is returned by [Index.Search], and by the tool search of
// package host, for a query that is empty or only white space.
var ErrEmptyQuery = errors.New("empty search query")

// The fields a skill is searched by. A word in the name is the strongest
// evidence that a skill is about it; triggers are discovery words the author
// chose on purpose; the description is prose, where a word may be
// incidental; the body (the SKILL.md instructions) is long and mostly
// incidental. Hence the weights name 3, triggers 2, description 1, body
// bodyWeight; then the glossary (glossaryWeight). Regexp mode uses the
// first three.
var fieldWeights = []float64{3, 2, 1, bodyWeight, glossaryWeight}

// bodyWeight is the weight of the SKILL.md body, the fourth field: it
// holds the words a description leaves out (a skill about "GIFs" whose
// body says "animation"), but far more of them, mostly incidental. On
// this repository's queries over the 166 real skills beside it
// (TestCorpusSearchQuality) the field took top-5 from 0.926 to 0.951 and
// MRR from 0.877 to 0.926. Weights 0.05 and 0.1 tie on top-5, and 0.05's
// MRR is higher by 0.002, one query's rank, which is noise on 81 queries;
// from 0.2 on, MRR falls (0.905 at 0.2, 0.858 at 0.8). Regexp queries do
// not look at the body.
const bodyWeight = 0.1

// glossaryWeight is the weight of the fifth field: what the well-known
// services named in the skill's name and description do
// ([bm25.Glossary]), for skills that wrap a product and say little more
// than its name. On this repository's queries MRR rises with it up to 3
// and is flat after (RATIONALE.md, "Synonyms and a service glossary").
const glossaryWeight = 3.0

// regexpFields are the fields regexp queries match: name, triggers,
// description.
const regexpFields = 3

// An Index ranks skills for a query by their name, triggers, description,
// what the well-known services they name do, and, weighted far below, the
// SKILL.md body a loaded skill holds.
//
// An Index is immutable after NewIndex and safe for concurrent use.
type Index struct {
	skills []*Skill
	bm25   *bm25.Index // document i is skills[i]
}

// A Match is one skill found by Index.Search. Name and Description
// repeat the skill's, so a Match marshals to JSON as it is.
type Match struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	Skill       *Skill  `json:"-"`
}

// SearchOptions configures a search: of skills ([Index.Search]) or of
// tools (the registry of package host), which share the index code. A nil
// *SearchOptions means defaults.
type SearchOptions struct {
	// Limit is the most results to return: 0 means [DefaultSearchLimit],
	// and a negative Limit means every match.
	Limit int
	// Regex makes the query a Go regular expression (RE2 syntax), matched
	// case-insensitively against each field; (?-i) in the pattern makes
	// case matter again. A result scores the sum of the weights of the
	// fields that match: for a skill name 3, triggers 2, description 1
	// (the body is not matched); for a tool, see the host's search.
	Regex bool
}

// NewIndex indexes skills, skipping nil entries. It keeps the *Skill
// pointers, not the slice, so later changes to the slice do not affect the
// Index.
//
// Scores are BM25F (Robertson & Zaragoza 2009, "The Probabilistic
// Relevance Framework: BM25 and Beyond"), with the non-negative idf that
// Lucene uses: for each query term t, with N skills of which df contain t,
//
//	idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
//	tf(t)  = Σ_f w_f · tf_f(t) / (1 - b + b · len_f / avglen_f)
//	score  = Σ_t idf(t) · tf(t) / (k1 + tf(t)),   k1 = 1.2, b = 0.75
//
// where f ranges over name, triggers, description, body and glossary, w_f
// are the field weights, len_f the field's length in tokens and avglen_f
// its average over all skills. A query word also counts its synonyms at
// half weight (package internal/bm25). Weighting term frequencies before saturation, rather than
// repeating name tokens or adding one BM25 score per field, keeps each
// field's length normalization its own (a long description does not make
// a name match count less) and counts a word found in several fields once,
// with more confidence, instead of once per field.
func NewIndex(skills []*Skill) *Index {
	ix := &Index{}
	var docs []bm25.Doc
	for _, s := range skills {
		if s != nil {
			ix.skills = append(ix.skills, s)
			docs = append(docs, bm25.Doc{{s.Name}, s.Triggers(), {s.Description}, {s.Body}, bm25.Glossary(s.Name, s.Description)})
		}
	}
	ix.bm25 = bm25.New(fieldWeights, docs).RegexpFields(regexpFields)
	return ix
}

// Search returns the skills that match query, best first: by score
// descending, then by name, then in the order given to NewIndex. Only
// skills with a positive score are returned; a query with no indexed word
// (only stopwords, or unknown words) returns an empty, non-nil slice.
//
// Without o.Regex the query is a bag of words, tokenized like the skills
// (see NewIndex for the scoring); a repeated word counts once.
//
// Search returns ErrEmptyQuery for an empty query, and an error naming the
// problem for a regexp that is too long or does not compile.
func (ix *Index) Search(query string, o *SearchOptions) ([]Match, error) {
	var opts SearchOptions
	if o != nil {
		opts = *o
	}
	if opts.Limit == 0 {
		opts.Limit = DefaultSearchLimit
	}
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmptyQuery
	}

	scores, err := ix.bm25.Query(query, opts.Regex, maxRegexpLen)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	hits := bm25.Rank(scores, func(i, j int) int {
		return strings.Compare(ix.skills[i].Name, ix.skills[j].Name)
	}, opts.Limit)
	results := make([]Match, len(hits))
	for k, i := range hits {
		s := ix.skills[i]
		results[k] = Match{Name: s.Name, Description: s.Description, Score: scores[i], Skill: s}
	}
	return results, nil
}

// tokenize is the tokenizer of the index, [bm25.Tokenize].
func tokenize(text string, out []string) []string { return bm25.Tokenize(text, out) }
