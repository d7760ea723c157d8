package skills

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// searchQuery is one line of testdata/search/queries.tsv.
type searchQuery struct {
	text string
	want []string // any of these names is a hit
	hard bool
}

func readSearchQueries(t *testing.T, file string) []searchQuery {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var qs []searchQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		require.GreaterOrEqual(t, len(cols), 2, "%s: %q", file, line)
		qs = append(qs, searchQuery{text: cols[0], want: strings.Split(cols[1], "|"), hard: len(cols) > 2 && cols[2] == "hard"})
	}
	require.NoError(t, sc.Err())
	return qs
}

// searchQuality is how well an index answers qs: the share of queries
// whose skill is in the top 5, and the mean reciprocal rank.
type searchQuality struct {
	n         int
	top5, mrr float64
	misses    []string
}

func measureSearch(t *testing.T, ix *Index, qs []searchQuery) searchQuality {
	t.Helper()
	var q searchQuality
	for _, sq := range qs {
		res, err := ix.Search(sq.text, &SearchOptions{Limit: 20})
		require.NoError(t, err)
		rank := slices.IndexFunc(res, func(r Match) bool { return slices.Contains(sq.want, r.Name) })
		q.n++
		if rank >= 0 {
			q.mrr += 1 / float64(rank+1)
		}
		if rank >= 0 && rank < 5 {
			q.top5++
		} else {
			var top []string
			for _, r := range res[:min(3, len(res))] {
				top = append(top, r.Name)
			}
			q.misses = append(q.misses, fmt.Sprintf("%s → rank %d (0: not found), top: %s", sq.text, rank+1, strings.Join(top, ", ")))
		}
	}
	q.top5 /= float64(q.n)
	q.mrr /= float64(q.n)
	return q
}

// TestCorpusSearchQuality measures skill search over the 166 real skills
// with this repository's own queries (testdata/search/queries.tsv): the
// share of queries whose skill ranks in the top 5, overall and for the
// hard (paraphrased) ones, and the mean reciprocal rank. The floors are
// what the index reaches today, so a change that makes search worse fails.
func TestCorpusSearchQuality(t *testing.T) {
	dirs := corpusSkillDirs(t)
	var list []*Skill
	for _, d := range dirs {
		s, err := LoadDir(d, nil)
		require.NoError(t, err, d)
		list = append(list, s)
	}
	ix := NewIndex(list)
	qs := readSearchQueries(t, "testdata/search/queries.tsv")
	var hard []searchQuery
	for _, q := range qs {
		if q.hard {
			hard = append(hard, q)
		}
	}
	require.GreaterOrEqual(t, len(qs), 80)
	require.GreaterOrEqual(t, len(hard), 40)
	all, h := measureSearch(t, ix, qs), measureSearch(t, ix, hard)
	t.Logf("all %d queries: top-5 %.3f, MRR %.3f; hard %d: top-5 %.3f, MRR %.3f", all.n, all.top5, all.mrr, h.n, h.top5, h.mrr)
	for _, m := range all.misses {
		t.Logf("miss: %s", m)
	}
	val := measureSearch(t, ix, readSearchQueries(t, "testdata/search/validation.tsv"))
	t.Logf("validation %d queries (hard): top-5 %.3f, MRR %.3f", val.n, val.top5, val.mrr)
	for _, m := range val.misses {
		t.Logf("validation miss: %s", m)
	}
	// Name, triggers and description with a plural-s stemmer reached top-5
	// 0.914 (hard 0.848), MRR 0.865 (hard 0.791); the body field and the
	// Porter2 stemmer 0.951 (0.913), MRR 0.926 (0.870); synonyms and the
	// service glossary 0.988 (0.978), MRR 0.949 (0.931). The validation
	// queries, written before synonyms and glossary and not tuned on, went
	// from top-5 0.667, MRR 0.581 to 0.972 and 0.831.
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"top-5, all", all.top5, 0.98}, {"top-5, hard", h.top5, 0.97},
		{"MRR, all", all.mrr, 0.94}, {"MRR, hard", h.mrr, 0.92},
		{"top-5, validation", val.top5, 0.97}, {"MRR, validation", val.mrr, 0.82},
	} {
		assert.GreaterOrEqual(t, c.got, c.want, "%s is below the floor", c.what)
	}
}
