package skilltest

import (
	"testing"

	"github.com/skillrun/skillrun/skills"
)

// FuzzParseCase: no case file, TOML or txtar, makes the parser panic, and
// a parsed case either has a kind or an error.
func FuzzParseCase(f *testing.F) {
	f.Add([]byte("script = \"count\"\nargs = [\"a\"]\n[grant]\nread = [\"workspace\"]\n-- workspace/a --\nx\n-- stdout --\n1\n"), true)
	f.Add([]byte("command = \"true\"\n[expect]\nexit = 3\nstdout_matches = '^a'\n[expect.files]\n\"out/x\" = '''\ny\n'''\n"), false)
	f.Add([]byte("[trigger]\nshould = [\"a\"]\ntop = -1\n"), false)
	f.Add([]byte("plan = \"../x\"\n-- stdin --\n-- stdin --\n"), true)
	s := &skills.Skill{Name: "fuzz", Location: "/nonexistent/fuzz/SKILL.md"}
	f.Fuzz(func(t *testing.T, data []byte, isTxtar bool) {
		file := "/nonexistent/fuzz/tests/c.toml"
		if isTxtar {
			file = "/nonexistent/fuzz/tests/c.txtar"
		}
		c := &Case{Name: "c", ID: "fuzz/c", File: file, Skill: s}
		err := c.parse(data)
		if err == nil && c.Kind == "" {
			t.Fatalf("no error and no kind for %q", data)
		}
	})
}
