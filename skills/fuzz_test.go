package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseSkill feeds arbitrary bytes to the SKILL.md parser. It must not
// panic, every problem must name its file, and a parsed skill must satisfy
// the invariants validation promises.
func FuzzParseSkill(f *testing.F) {
	f.Add([]byte("---\nname: pdf\ndescription: Read PDFs.\n---\nbody\n"), "pdf")
	f.Add([]byte("---\nname: a\ndescription: d\nallowed-tools: [Read]\nmetadata: {a: b}\n---\n"), "a")
	f.Add([]byte("---\r\nname: ｐｄｆ\r\ndescription: >\r\n  x\r\n---\r\n"), "pdf")
	f.Add([]byte("---\na: &a [1]\nb: *a\n---\n"), "x")
	f.Add([]byte("\xEF\xBB\xBF---\nname: !!str 1\ndescription: d\n---"), "1")
	f.Add([]byte("---\nname: a\n? [x]\n: y\n---\n"), "a")
	f.Fuzz(func(t *testing.T, data []byte, dir string) {
		s, ps := parseSkillMD(data, "f/SKILL.md", dir)
		for _, p := range ps {
			if p.File != "f/SKILL.md" || p.Code == "" || p.Message == "" {
				t.Fatalf("incomplete problem %#v", p)
			}
		}
		grade(ps, true)
		if s == nil {
			if len(ps.Errors()) == 0 {
				t.Fatal("no skill and no error")
			}
			return
		}
		if len(ps.Errors()) == 0 {
			// A valid skill: the promises of validation hold.
			if s.Name == "" || s.Description == "" || !utf8.ValidString(s.Name) {
				t.Fatalf("valid skill with name %q description %q", s.Name, s.Description)
			}
			if strings.HasPrefix(s.Name, "-") || strings.Contains(s.Name, "--") {
				t.Fatalf("valid skill with bad name %q", s.Name)
			}
		}
	})
}
