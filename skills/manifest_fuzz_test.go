package skills

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/tomlx"
)

// FuzzParseManifest feeds arbitrary bytes to the manifest parser, which
// reads untrusted files: it must never panic or hang, and must return a
// manifest or problems (or both), every problem an error in the given file.
// The seed corpus is testdata/manifest/*.toml plus testdata/fuzz.
func FuzzParseManifest(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "manifest", "*.toml"))
	require.NoError(f, err)
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"version = 1",
		"[scripts.s]\nplugin = \"p.wasm\"\nbuild = { lang = \"go\", dir = \".\" }",
		"[capabilities]\nnet = [\"*\", \"[::1]:443\"]\nmemory = 1024",
		"a = { b = { c = [ { d = 1 } ] } }",
		"x = \"\"\"\n[y]\n\"\"\"",
		"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p = 1",
		"a = [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz/skill.toml"
		m, ps := ParseManifest(data, file)
		if m == nil && len(ps) == 0 {
			t.Fatal("no manifest and no problems")
		}
		for _, p := range ps {
			if p.File != file || p.Severity != Error || p.Message == "" || p.Line < 0 {
				t.Fatalf("bad problem %+v", p)
			}
		}
		if m != nil {
			names := m.ScriptNames()
			if !slices.IsSorted(names) {
				t.Fatalf("ScriptNames() not sorted: %q", names)
			}
			for _, name := range names {
				if s := m.Scripts[name]; s == nil || s.Name != name {
					t.Fatalf("script %q: %+v", name, s)
				}
			}
			if len(ps) == 0 && m.Version != 1 {
				t.Fatalf("valid manifest has version %d", m.Version)
			}
		}
		// The locator runs only on valid TOML inside ParseManifest; make
		// sure it survives anything.
		kl, deep := tomlx.LocateKeys(data)
		if deep < 0 {
			t.Fatalf("tooDeep = %d", deep)
		}
		for k, line := range kl {
			if line < 1 {
				t.Fatalf("key %s at line %d", k, line)
			}
		}
		// The depth guard must not be fooled: whatever the real parser
		// accepts after the scan passed is nested no deeper than allowed.
		if deep == 0 {
			var raw map[string]any
			if md, err := toml.Decode(string(data), &raw); err == nil {
				for _, k := range md.Keys() {
					if len(k) > tomlx.MaxNesting {
						t.Fatalf("key %s nests %d deep, but the scan passed", k, len(k))
					}
				}
			}
		}
	})
}
