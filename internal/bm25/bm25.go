// Package bm25 ranks small sets of documents for a query with BM25F, and
// matches them against a regular expression by field: the scoring core of
// skill search (package skills) and tool search (package host).
//
// A document is a fixed list of fields (a name, a description, ...), each
// a list of texts, and each field has a weight. [New] builds an immutable
// [Index]; [Index.Scores] and [Index.RegexpScores] score every document
// for a query; [Rank] turns scores into a result order.
package bm25

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// BM25 parameters, the usual defaults (Robertson & Zaragoza 2009).
const (
	K1 = 1.2  // term-frequency saturation
	B  = 0.75 // length normalization
)

// A Doc is one document: for each field, in the order of the weights
// given to [New], the texts it holds.
type Doc [][]string

// An Index scores documents for a query. It is immutable after [New] and
// safe for concurrent use.
type Index struct {
	weights []float64
	docs    []Doc
	// regexpFields is how many fields, from the first, regexp queries
	// match; all of them unless [Index.RegexpFields] says otherwise.
	regexpFields int
	// postings maps a term to the documents that contain it, in document
	// order, each with its whole BM25F contribution precomputed, so a
	// search only adds numbers up.
	postings map[string][]posting
}

type posting struct {
	doc   int32
	score float64
}

// New indexes docs, whose fields have the given weights. A Doc with fewer
// fields than weights has the rest empty; extra fields are ignored. The
// Index keeps docs (not a copy of the texts), for regexp matching.
//
// Scores are BM25F (Robertson & Zaragoza 2009, "The Probabilistic
// Relevance Framework: BM25 and Beyond"), with the non-negative idf that
// Lucene uses: for each query term t, with N documents of which df contain t,
//
//	idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
//	tf(t)  = Σ_f w_f · tf_f(t) / (1 - b + b · len_f / avglen_f)
//	score  = Σ_t idf(t) · tf(t) / (k1 + tf(t)),   k1 = 1.2, b = 0.75
//
// where f ranges over the fields, w_f are their weights, len_f the field's
// length in tokens and avglen_f its average over all documents. Weighting
// term frequencies before saturation, rather than repeating name tokens or
// adding one BM25 score per field, keeps each field's length normalization
// its own (a long description does not make a name match count less) and
// counts a word found in several fields once, with more confidence,
// instead of once per field.
func New(weights []float64, docs []Doc) *Index {
	nf := len(weights)
	ix := &Index{weights: slices.Clone(weights), docs: docs, regexpFields: nf, postings: make(map[string][]posting)}

	// First pass: term frequencies per field, field lengths, and for each
	// term the documents that contain it (so its document frequency).
	type rawPosting struct {
		doc int32
		tf  []int32 // per field, a window of slab
	}
	raw := make(map[string][]rawPosting)
	lens := make([]int, len(docs)*nf) // lens[i*nf+f]
	avglen := make([]float64, nf)
	// The term frequencies of one document: slot[t] is where term t's
	// counts start in tf. The counts of every document are kept, in one
	// slab per document, as the postings' tf windows.
	slot := make(map[string]int)
	var buf []string
	// Documents repeat their words; stemming each distinct word once
	// makes indexing long texts (skill bodies) many times cheaper.
	stems := make(map[string]string)
	for i, d := range docs {
		clear(slot)
		var tf []int32
		for f := range min(nf, len(d)) {
			for _, text := range d[f] {
				buf = tokenize(text, buf[:0], stems)
				for _, t := range buf {
					j, ok := slot[t]
					if !ok {
						j = len(tf)
						slot[t] = j
						tf = append(tf, make([]int32, nf)...)
					}
					tf[j+f]++
				}
				lens[i*nf+f] += len(buf)
			}
			avglen[f] += float64(lens[i*nf+f])
		}
		for t, j := range slot {
			raw[t] = append(raw[t], rawPosting{int32(i), tf[j : j+nf : j+nf]})
		}
	}
	n := float64(len(docs))
	for f := range avglen {
		avglen[f] /= n
		if avglen[f] == 0 || math.IsNaN(avglen[f]) {
			avglen[f] = 1 // no document has this field, so its tf is always 0
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
					lenNorm := 1 - B + B*float64(lens[int(rp.doc)*nf+f])/avglen[f]
					tf += weights[f] * float64(k) / lenNorm
				}
			}
			ps[j] = posting{rp.doc, idf * tf / (K1 + tf)}
		}
		ix.postings[t] = ps
	}
	return ix
}

// Len returns the number of documents in the index.
func (ix *Index) Len() int { return len(ix.docs) }

// Scores returns the BM25F score of every document for query, a bag of
// words tokenized like the documents (see [Tokenize]); a repeated word
// counts once. A word also finds the documents that use one of its
// synonyms (see synonymGroups), at half the weight. A document that
// matches no word scores 0.
func (ix *Index) Scores(query string) []float64 {
	scores := make([]float64, len(ix.docs))
	// Sorted and deduplicated, so that word order cannot change a
	// floating-point sum and so a tie.
	terms, weights := expand(query)
	for i, t := range terms {
		for _, p := range ix.postings[t] {
			scores[p.doc] += weights[i] * p.score
		}
	}
	return scores
}

// Query returns the scores for query: [Index.Scores] of its words, or,
// with regex, [Index.RegexpScores] of it compiled by [CompileRegexp]
// (whose error it returns).
func (ix *Index) Query(query string, regex bool, maxLen int) ([]float64, error) {
	if !regex {
		return ix.Scores(query), nil
	}
	re, err := CompileRegexp(query, maxLen)
	if err != nil {
		return nil, err
	}
	return ix.RegexpScores(re), nil
}

// RegexpFields returns a copy of ix whose regexp queries match only the
// first n fields: a long field that helps word queries (a skill's body)
// would make a pattern match almost everything.
func (ix *Index) RegexpFields(n int) *Index {
	c := *ix
	c.regexpFields = max(0, min(n, len(ix.weights)))
	return &c
}

// RegexpScores returns, for every document, the sum of the weights of the
// fields (see [Index.RegexpFields]) in which some text matches re.
func (ix *Index) RegexpScores(re *regexp.Regexp) []float64 {
	scores := make([]float64, len(ix.docs))
	for i, d := range ix.docs {
		for f := range min(ix.regexpFields, len(d)) {
			if slices.ContainsFunc(d[f], re.MatchString) {
				scores[i] += ix.weights[f]
			}
		}
	}
	return scores
}

// Rank returns the indices of the documents with a positive score, best
// first: by score descending, then by tie (which may be nil), then by
// index. That is a total order, so the result never depends on the sort
// algorithm. A positive limit keeps only the first limit indices.
func Rank(scores []float64, tie func(i, j int) int, limit int) []int {
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
		if tie != nil {
			if c := tie(i, j); c != 0 {
				return c
			}
		}
		return cmp.Compare(i, j)
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// CompileRegexp compiles a regular-expression query (RE2 syntax),
// case-insensitive unless the pattern says otherwise with (?-i). A pattern
// longer than maxLen bytes is refused: the query is untrusted input, and
// its size is the only bound it needs, because Go's regexp matches in time
// linear in the input and never backtracks. Errors quote the pattern as
// given and start with "invalid search regexp" or "search regexp is".
func CompileRegexp(pattern string, maxLen int) (*regexp.Regexp, error) {
	if len(pattern) > maxLen {
		return nil, fmt.Errorf("search regexp is %d bytes, over the %d-byte limit", len(pattern), maxLen)
	}
	// Compile the pattern as given first, so an error quotes the user's
	// text and not our (?i) prefix.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, fmt.Errorf("invalid search regexp %q: %w", pattern, err)
	}
	// A leading (?i) is overridden by any flags the pattern sets itself,
	// from where it sets them.
	return regexp.Compile("(?i)" + pattern)
}

// stopwords are dropped from queries and documents alike: they are in
// almost every description ("Use when…") and say nothing about it.
var stopwords = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "or": true, "of": true,
	"to": true, "for": true, "in": true, "on": true, "with": true, "use": true,
	"when": true, "this": true, "that": true, "is": true, "are": true,
	"be": true, "it": true, "as": true, "by": true, "from": true, "at": true,
}

// Tokenize appends the search terms of text to out and returns it. It
// normalizes text to NFKC and lowercases it, splits it on every rune that
// is not a letter, a number or a combining mark (so "pdf-extract" and
// "zoho_books" give two words each, and "données" stays one word in any
// Unicode form), drops stopwords, and stems what is left.
func Tokenize(text string, out []string) []string { return tokenize(text, out, nil) }

// tokenize is [Tokenize] with a memo of stems (nil: none).
func tokenize(text string, out []string, stems map[string]string) []string {
	text = strings.ToLower(norm.NFKC.String(text))
	for w := range strings.FieldsFuncSeq(text, notWordRune) {
		if stopwords[w] {
			continue
		}
		if stems == nil {
			out = append(out, stem(w))
			continue
		}
		st, ok := stems[w]
		if !ok {
			st = stem(w)
			stems[w] = st
		}
		out = append(out, st)
	}
	return out
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
}

// stem reduces a word to its stem, so "diagrams", "diagramming" and
// "diagrammed" find each other: the Snowball (Porter2) English stemmer for
// words of ASCII letters, which is what skill and tool texts mostly are;
// other words, and those Porter2 leaves alone, lose only a plural "s"
// (when longer than three letters and not ending in "ss"), since a
// stemmer for the wrong language does more harm than none.
func stem(w string) string {
	if isASCIILetters(w) {
		if st := english.Stem(w, true); st != w {
			return st
		}
		// Unchanged: Porter2 keeps the "s" of a word with no vowel
		// before it ("pdfs", "csvs"), which here is an acronym's plural.
	}
	if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && utf8.RuneCountInString(w) > 3 {
		return w[:len(w)-1]
	}
	return w
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}
