package skills

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// DefaultSearchLimit is the number of results Search returns when
// SearchOptions.Limit is zero.
const DefaultSearchLimit = 10

// MaxRegexpLen bounds a regular-expression query in bytes. The query is
// untrusted input (it may come from a model or an MCP client), so its size
// is bounded; its running time needs no bound beyond that, because Go's
// regexp (RE2) matches in time linear in the input and never backtracks.
const MaxRegexpLen = 1 << 10

// ErrEmptyQuery is returned by Index.Search for a query that is empty or
// only white space.
var ErrEmptyQuery = errors.New("skills: empty search query")

// BM25 parameters, the usual defaults (Robertson & Zaragoza 2009).
const (
	bm25K1 = 1.2  // term-frequency saturation
	bm25B  = 0.75 // length normalization
)

// The fields a skill is searched by. A word in the name is the strongest
// evidence that a skill is about it; triggers are discovery words the author
// chose on purpose; the description is prose, where a word may be
// incidental. Hence the weights name 3, triggers 2, description 1, which
// regexp mode uses too.
const (
	fieldName = iota
	fieldTriggers
	fieldDescription
	numFields
)

var fieldWeights = [numFields]float64{fieldName: 3, fieldTriggers: 2, fieldDescription: 1}

// An Index ranks skills for a query by their name, description and
// triggers: level-1 discovery without loading every body.
//
// An Index is immutable after NewIndex and safe for concurrent use.
type Index struct {
	skills []*Skill
	// postings maps a term to the skills that contain it, in skill order,
	// each with its whole BM25F contribution precomputed, so a search only
	// adds numbers up.
	postings map[string][]posting
}

type posting struct {
	doc   int32
	score float64
}

// A Result is one skill found by Index.Search. Name and Description
// repeat the skill's, so a Result marshals to JSON as it is.
type Result struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	Skill       *Skill  `json:"-"`
}

// SearchOptions configures Index.Search. A nil *SearchOptions means
// defaults.
type SearchOptions struct {
	// Limit is the most results to return: 0 means DefaultSearchLimit, and
	// a negative Limit means every skill that matches.
	Limit int
	// Regex makes the query a Go regular expression (RE2 syntax), matched
	// case-insensitively against the name, the description and each
	// trigger; (?-i) in the pattern makes case matter again. A skill
	// scores the sum of the weights of the fields that match (name 3,
	// triggers 2, description 1).
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
// where f ranges over name, triggers and description, w_f are the field
// weights, len_f the field's length in tokens and avglen_f its average over
// all skills. Weighting term frequencies before saturation, rather than
// repeating name tokens or adding one BM25 score per field, keeps each
// field's length normalization its own (a long description does not make
// a name match count less) and counts a word found in several fields once,
// with more confidence, instead of once per field.
func NewIndex(skills []*Skill) *Index {
	ix := &Index{postings: make(map[string][]posting)}
	for _, s := range skills {
		if s != nil {
			ix.skills = append(ix.skills, s)
		}
	}

	// First pass: term frequencies per field, field lengths, and for each
	// term the skills that contain it (so its document frequency).
	type rawPosting struct {
		doc int32
		tf  [numFields]int32
	}
	raw := make(map[string][]rawPosting)
	lens := make([][numFields]int, len(ix.skills))
	var avglen [numFields]float64
	tf := make(map[string][numFields]int32)
	var buf []string
	for i, s := range ix.skills {
		clear(tf)
		for f, texts := range skillFields(s) {
			for _, text := range texts {
				buf = tokenize(text, buf[:0])
				for _, t := range buf {
					c := tf[t]
					c[f]++
					tf[t] = c
				}
				lens[i][f] += len(buf)
			}
			avglen[f] += float64(lens[i][f])
		}
		for t, c := range tf {
			raw[t] = append(raw[t], rawPosting{int32(i), c})
		}
	}
	n := float64(len(ix.skills))
	for f := range avglen {
		avglen[f] /= n
		if avglen[f] == 0 {
			avglen[f] = 1 // no skill has this field, so its tf is always 0
		}
	}

	// Second pass: each posting's share of the score.
	for t, rps := range raw {
		df := float64(len(rps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		ps := make([]posting, len(rps))
		for j, rp := range rps {
			var tf float64
			for f, k := range rp.tf {
				if k > 0 {
					lenNorm := 1 - bm25B + bm25B*float64(lens[rp.doc][f])/avglen[f]
					tf += fieldWeights[f] * float64(k) / lenNorm
				}
			}
			ps[j] = posting{rp.doc, idf * tf / (bm25K1 + tf)}
		}
		ix.postings[t] = ps
	}
	return ix
}

// skillFields returns the searchable text of s, by field.
func skillFields(s *Skill) [numFields][]string {
	return [numFields][]string{
		fieldName:        {s.Name},
		fieldTriggers:    s.Triggers(),
		fieldDescription: {s.Description},
	}
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
func (ix *Index) Search(query string, o *SearchOptions) ([]Result, error) {
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

	scores := make([]float64, len(ix.skills))
	if opts.Regex {
		re, err := compileQuery(query)
		if err != nil {
			return nil, err
		}
		for i, s := range ix.skills {
			for f, texts := range skillFields(s) {
				if slices.ContainsFunc(texts, re.MatchString) {
					scores[i] += fieldWeights[f]
				}
			}
		}
	} else {
		// Sorted and deduplicated, so that word order cannot change a
		// floating-point sum and so a tie.
		terms := tokenize(query, nil)
		slices.Sort(terms)
		for _, t := range slices.Compact(terms) {
			for _, p := range ix.postings[t] {
				scores[p.doc] += p.score
			}
		}
	}

	// Rank the hits by score, then name, then input order: a total order,
	// so the result never depends on the sort algorithm.
	var hits []int
	for i, sc := range scores {
		if sc > 0 {
			hits = append(hits, i)
		}
	}
	slices.SortFunc(hits, func(i, j int) int {
		if c := cmp.Compare(scores[j], scores[i]); c != 0 {
			return c
		}
		if c := strings.Compare(ix.skills[i].Name, ix.skills[j].Name); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	if opts.Limit > 0 && len(hits) > opts.Limit {
		hits = hits[:opts.Limit]
	}
	results := make([]Result, len(hits))
	for k, i := range hits {
		s := ix.skills[i]
		results[k] = Result{Name: s.Name, Description: s.Description, Score: scores[i], Skill: s}
	}
	return results, nil
}

// compileQuery compiles a regexp query, case-insensitive by default.
func compileQuery(pattern string) (*regexp.Regexp, error) {
	if len(pattern) > MaxRegexpLen {
		return nil, fmt.Errorf("skills: search regexp is %d bytes, over the %d-byte limit", len(pattern), MaxRegexpLen)
	}
	// Compile the pattern as given first, so an error quotes the user's
	// text and not our (?i) prefix.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, fmt.Errorf("skills: invalid search regexp %q: %w", pattern, err)
	}
	// A leading (?i) is overridden by any flags the pattern sets itself,
	// from where it sets them.
	return regexp.Compile("(?i)" + pattern)
}

// stopwords are dropped from queries and skills alike: they are in almost
// every description ("Use when…") and say nothing about a skill.
var stopwords = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "or": true, "of": true,
	"to": true, "for": true, "in": true, "on": true, "with": true, "use": true,
	"when": true, "this": true, "that": true, "is": true, "are": true,
	"be": true, "it": true, "as": true, "by": true, "from": true, "at": true,
}

// tokenize appends the search terms of text to out. It normalizes text to
// NFKC and lowercases it, splits it on every rune that is not a letter, a
// number or a combining mark (so "pdf-extract" and "zoho_books" give two
// words each, and "données" stays one word in any Unicode form), drops
// stopwords, and stems what is left.
func tokenize(text string, out []string) []string {
	text = strings.ToLower(norm.NFKC.String(text))
	for w := range strings.FieldsFuncSeq(text, notWordRune) {
		if !stopwords[w] {
			out = append(out, stem(w))
		}
	}
	return out
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
}

// stem strips a plural "s" from a word longer than three letters, so
// "diagrams" finds "diagram", leaving "ss" ("process") alone. That is all
// the stemming there is: a real stemmer is language-specific, and names and
// triggers are mostly nouns.
func stem(w string) string {
	if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && utf8.RuneCountInString(w) > 3 {
		return w[:len(w)-1]
	}
	return w
}
