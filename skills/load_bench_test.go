package skills

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/stretchr/testify/require"
)

// genSkills writes n generated skills (SKILL.md of realistic size, half of
// them with a skill.toml) under a temp dir and returns their directories.
func genSkills(b *testing.B, n int) []string {
	b.Helper()
	words := strings.Fields("pdf csv chart report extract convert table image audio video data plot " +
		"summary invoice email calendar search index graph model train test deploy review")
	r := rand.New(rand.NewPCG(1, 2))
	base := b.TempDir()
	dirs := make([]string, n)
	for i := range dirs {
		name := fmt.Sprintf("%s-%s-%d", words[r.IntN(len(words))], words[r.IntN(len(words))], i)
		var desc strings.Builder
		for j := 0; j < 30; j++ {
			desc.WriteString(words[r.IntN(len(words))] + " ")
		}
		files := map[string]string{
			"SKILL.md": "---\nname: " + name + "\ndescription: " + desc.String() +
				"\nlicense: MIT\nmetadata:\n  author: gen\n  version: \"1.0\"\n---\n" + strings.Repeat("Instructions line.\n", 200),
		}
		if i%2 == 0 {
			files["skill.toml"] = "version = 1\ntriggers = [\"gen\"]\n[capabilities]\nread = [\"workspace\"]\n" +
				"memory = \"64MiB\"\n[scripts.run]\ndescription = \"x\"\nmodule = \"scripts/run.wasm\"\n"
		}
		dirs[i] = testkit.WriteTree(b, filepath.Join(base, name), files)
	}
	return dirs
}

// BenchmarkLoadValidate1000 loads and strictly validates 1,000 skills per
// op. BenchmarkReadFiles1000 reads the same files with os.ReadFile and
// nothing else: the I/O floor, so the ratio of the two is what parsing and
// validation cost on top of reading.
func BenchmarkLoadValidate1000(b *testing.B) {
	dirs := genSkills(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range dirs {
			_, err := LoadDir(d, &LoadOptions{Strict: true})
			require.NoError(b, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "µs/skill")
}

func BenchmarkReadFiles1000(b *testing.B) {
	dirs := genSkills(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range dirs {
			_, err := os.ReadFile(filepath.Join(d, "SKILL.md"))
			require.NoError(b, err)
			os.ReadFile(filepath.Join(d, "skill.toml"))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "µs/skill")
}

// BenchmarkLoadCorpus loads the 166 real skills leniently, as a client
// starting up would.
func BenchmarkLoadCorpus(b *testing.B) {
	dirs := corpusSkillDirs(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range dirs {
			_, err := LoadDir(d, nil)
			require.NoError(b, err)
		}
	}
}
