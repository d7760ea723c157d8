package skills

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/bm25"
)

// benchVocabulary is the fixed vocabulary synthetic skills are drawn from.
var benchVocabulary = strings.Fields(`
	pdf docx xlsx pptx csv json yaml toml markdown html image audio video
	extract convert parse validate render summarize translate generate
	review debug deploy test lint format index search fetch upload
	table chart diagram report invoice email calendar ticket commit branch
	database query schema migration model dataset notebook pipeline cluster
	protein molecule genome circuit simulation forecast portfolio budget
	slack github notion jira vercel docker kubernetes aws azure gcp
	fast small secure local remote batch stream incremental parallel`)

// benchSkills returns n synthetic skills: 2-3 word names, 12-30 word
// descriptions and up to 3 triggers, from a seeded generator so every run
// indexes the same skills.
func benchSkills(n int) []*Skill {
	r := rand.New(rand.NewPCG(1, 2))
	words := func(min, max int) []string {
		w := make([]string, min+r.IntN(max-min+1))
		for i := range w {
			w[i] = benchVocabulary[r.IntN(len(benchVocabulary))]
		}
		return w
	}
	skills := make([]*Skill, n)
	for i := range skills {
		skills[i] = &Skill{
			Name:        strings.Join(words(2, 3), "-"),
			Description: "Use this skill to " + strings.Join(words(12, 30), " ") + ".",
			Manifest:    &Manifest{Triggers: words(0, 3)},
		}
	}
	return skills
}

const benchQuery = "convert pdf report"

func BenchmarkNewIndex1000(b *testing.B) {
	skills := benchSkills(1000)
	b.ReportAllocs()
	for b.Loop() {
		NewIndex(skills)
	}
}

func BenchmarkSearch1000(b *testing.B) {
	ix := NewIndex(benchSkills(1000))
	b.ReportAllocs()
	for b.Loop() {
		_, err := ix.Search(benchQuery, nil)
		require.NoError(b, err)
	}
}

func BenchmarkSearch1000Regex(b *testing.B) {
	ix := NewIndex(benchSkills(1000))
	b.ReportAllocs()
	for b.Loop() {
		_, err := ix.Search(`convert|pdf|report`, &SearchOptions{Regex: true})
		require.NoError(b, err)
	}
}

// BenchmarkSearch1000Naive is the baseline to compare BenchmarkSearch1000
// against: a strings.Contains scan of the lowercased descriptions for each
// query word, counting matches, with no ranking beyond that.
func BenchmarkSearch1000Naive(b *testing.B) {
	skills := benchSkills(1000)
	descs := make([]string, len(skills))
	for i, s := range skills {
		descs[i] = strings.ToLower(s.Description)
	}
	query := strings.Fields(benchQuery)
	b.ReportAllocs()
	for b.Loop() {
		hits := make([]int, len(descs))
		for _, w := range query {
			for i, d := range descs {
				if strings.Contains(d, w) {
					hits[i]++
				}
			}
		}
	}
}

// BenchmarkCorpusIndex indexes the 166 real skills beside the repository
// as NewIndex does (name, triggers, description and body) and, as the
// baseline in the same loop, without the body: the start-up cost of the
// body field, reported as the ratio body/nobody.
func BenchmarkCorpusIndex(b *testing.B) {
	var list []*Skill
	for _, d := range corpusSkillDirs(b) {
		s, err := LoadDir(d, nil)
		require.NoError(b, err)
		list = append(list, s)
	}
	var withBody, noBody time.Duration
	for b.Loop() {
		t0 := time.Now()
		docs := make([]bm25.Doc, len(list))
		for i, s := range list {
			docs[i] = bm25.Doc{{s.Name}, s.Triggers(), {s.Description}}
		}
		bm25.New(fieldWeights[:3], docs)
		t1 := time.Now()
		NewIndex(list)
		noBody += t1.Sub(t0)
		withBody += time.Since(t1)
	}
	b.ReportMetric(float64(withBody.Microseconds())/float64(b.N)/1e3, "ms/index")
	b.ReportMetric(float64(noBody.Microseconds())/float64(b.N)/1e3, "ms/index-nobody")
	b.ReportMetric(float64(withBody)/float64(noBody), "body/nobody")
}
