package skills

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir holds 166 real SKILL.md files (see its README.md), beside the
// repository in ../shared/corpus.
const corpusDir = "../../shared/corpus"

// corpusInvalid is the reference validator's verdict on the corpus: the 28
// skills skills-ref rejects (corpus README.md), with the rule each breaks
// first. Every other corpus skill must validate.
var corpusInvalid = func() map[string]string {
	m := map[string]string{
		"ComposioHQ+awesome-claude-skills/video-downloader":   codeNameDirMismatch,
		"vercel-labs+agent-skills/composition-patterns":       codeNameDirMismatch,
		"vercel-labs+agent-skills/react-best-practices":       codeNameDirMismatch,
		"vercel-labs+agent-skills/react-native-skills":        codeNameDirMismatch,
		"vercel-labs+agent-skills/react-view-transitions":     codeNameDirMismatch,
		"anthropics+skills/claude-api":                        codeDescriptionTooLong,
		"K-Dense-AI+claude-scientific-skills/database-lookup": codeDescriptionTooLong,
		"K-Dense-AI+claude-scientific-skills/adaptyv":         codeUnexpectedField,
	}
	dirs, _ := filepath.Glob(filepath.Join(corpusDir, "ComposioHQ+awesome-claude-skills", "*-automation"))
	for _, d := range dirs {
		m["ComposioHQ+awesome-claude-skills/"+filepath.Base(d)] = codeUnexpectedField // requires:
	}
	return m
}()

// requireCorpus skips tb when the corpus is not beside the repository (a
// fresh clone on its own passes make test), and fails it when
// REQUIRE_CORPUS is set, as .ci/run sets it: there a missing corpus is a
// broken setup, not a reason to test less.
func requireCorpus(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(corpusDir); err == nil {
		return
	}
	if os.Getenv("REQUIRE_CORPUS") != "" {
		tb.Fatalf("no corpus at %s, and REQUIRE_CORPUS is set: put the shared corpus beside the repository", corpusDir)
	}
	tb.Skipf("no corpus at %s (the 166 real SKILL.md files beside the repository); REQUIRE_CORPUS=1 makes this a failure", corpusDir)
}

func corpusSkillDirs(t testing.TB) []string {
	requireCorpus(t)
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*", "*", "SKILL.md"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no corpus at %s: the tests expect ../shared/corpus beside the repository", corpusDir)
	dirs := make([]string, len(files))
	for i, f := range files {
		dirs[i] = filepath.Dir(f)
	}
	return dirs
}

func corpusKey(dir string) string {
	rel, _ := filepath.Rel(corpusDir, dir)
	return filepath.ToSlash(rel)
}

// TestCorpusConformance validates every real SKILL.md strictly and checks
// the verdicts equal the reference validator's.
func TestCorpusConformance(t *testing.T) {
	dirs := corpusSkillDirs(t)
	require.Len(t, dirs, 166)
	require.Len(t, corpusInvalid, 28)
	got := map[string]string{}
	for _, dir := range dirs {
		_, err := LoadDir(dir, &LoadOptions{Strict: true})
		if err == nil {
			continue
		}
		var le *LoadError
		require.ErrorAs(t, err, &le, corpusKey(dir))
		codes := map[string]bool{}
		for _, p := range le.Problems.Errors() {
			codes[p.Code] = true
			require.NotEmpty(t, p.File, "problem without a file: %v", p)
		}
		key := corpusKey(dir)
		if want, ok := corpusInvalid[key]; ok && codes[want] {
			got[key] = want
		} else {
			got[key] = strings.Join(sortedKeys(codes), ",")
		}
	}
	assert.Equal(t, corpusInvalid, got, "verdicts differ from skills-ref")
}

// TestCorpusLenient loads the corpus as a client does: every skill with a
// name and description loads, with warnings for what validation rejects.
func TestCorpusLenient(t *testing.T) {
	var loaded, warned int
	for _, dir := range corpusSkillDirs(t) {
		s, err := LoadDir(dir, nil)
		require.NoError(t, err, corpusKey(dir))
		loaded++
		if len(s.Problems) > 0 {
			warned++
		}
		if _, bad := corpusInvalid[corpusKey(dir)]; bad {
			assert.NotEmpty(t, s.Problems, "%s: invalid skill loaded without a warning", corpusKey(dir))
		}
		require.NotEmpty(t, s.Name)
		require.NotEmpty(t, s.Description)
	}
	require.Equal(t, 166, loaded)
	require.GreaterOrEqual(t, warned, 28)
}

// TestCorpusCRLF: geomaster uses CRLF line endings and is valid.
func TestCorpusCRLF(t *testing.T) {
	requireCorpus(t)
	dir := filepath.Join(corpusDir, "K-Dense-AI+claude-scientific-skills", "geomaster")
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	require.NoError(t, err)
	require.Contains(t, string(data), "\r\n")
	s, err := LoadDir(dir, &LoadOptions{Strict: true})
	require.NoError(t, err)
	require.Equal(t, "geomaster", s.Name)
	require.NotContains(t, s.Description, "\r")
}

// TestCorpusNonSpecKeysKept: non-spec keys are reported and kept.
func TestCorpusNonSpecKeysKept(t *testing.T) {
	requireCorpus(t)
	s, err := LoadDir(filepath.Join(corpusDir, "K-Dense-AI+claude-scientific-skills", "adaptyv"), nil)
	require.NoError(t, err)
	require.Contains(t, s.Extra, "author")
	var codes []string
	for _, p := range s.Problems {
		codes = append(codes, p.Code)
	}
	sort.Strings(codes)
	require.Contains(t, codes, codeUnexpectedField)
	_, err = LoadDir(filepath.Join(corpusDir, "K-Dense-AI+claude-scientific-skills", "adaptyv"), &LoadOptions{Strict: true})
	var le *LoadError
	require.True(t, errors.As(err, &le))
	require.Contains(t, err.Error(), "unexpected fields in frontmatter: author")
}
