package tomlx

import (
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
)

func TestLocateKeys(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want map[string]int // key -> line; keys not listed are not checked
		none []string       // keys that must not be found
	}{
		{
			name: "headers and keys",
			src:  "version = 1\n\n[capabilities]\nread = []\n\n[scripts.stats]\nmodule = \"a\"\n[scripts.stats.capabilities]\nenv = []\n",
			want: map[string]int{
				"version": 1, "capabilities": 3, "capabilities.read": 4,
				"scripts": 6, "scripts.stats": 6, "scripts.stats.module": 7,
				"scripts.stats.capabilities": 8, "scripts.stats.capabilities.env": 9,
			},
		},
		{
			name: "comments and strings that look like keys",
			src: "# fake = 1\n" +
				"triggers = [\"a = b\", '[x]', \"# not a comment\"] # real = comment\n" +
				"[capabilities] # [scripts.fake]\n" +
				"env = [\"=\"]\n",
			want: map[string]int{"triggers": 2, "capabilities": 3, "capabilities.env": 4},
			none: []string{"fake", "a", "x", "real", "scripts", "scripts.fake"},
		},
		{
			name: "quoted and dotted keys",
			src: "[scripts.\"my tool\"]\n" +
				"'literal.key' = 1\n" +
				"\"esc\\\"aped\" = 2\n" +
				"a . b . c = 3\n" +
				"[ scripts . 'x y' ]\n" +
				"k = 4\n",
			want: map[string]int{
				`scripts."my tool"`:               1,
				`scripts."my tool"."literal.key"`: 2,
				`scripts."my tool"."esc\"aped"`:   3,
				`scripts."my tool".a`:             4,
				`scripts."my tool".a.b.c`:         4,
				`scripts."x y"`:                   5,
				`scripts."x y".k`:                 6,
			},
		},
		{
			name: "arrays spanning lines",
			src: "triggers = [\n" +
				"  \"a\", # comment with = and [\n" +
				"  \"]\",\n" +
				"  [1, [2, 3]],\n" +
				"]\n" +
				"after = 1\n",
			want: map[string]int{"triggers": 1, "after": 6},
		},
		{
			name: "multi-line strings",
			src: "description = \"\"\"\n" +
				"fake = 1\n" +
				"[fake]\n" +
				"ends with quotes\"\"\"\"\"\n" +
				"lit = '''\n" +
				"x = 'y'\n" +
				"'''\n" +
				"esc = \"\"\"a\\\"\"\"b\"\"\"\n" +
				"last = 1\n",
			want: map[string]int{"description": 1, "lit": 5, "esc": 8, "last": 9},
			none: []string{"fake", "x"},
		},
		{
			name: "inline tables",
			src: "[scripts.s]\n" +
				"build = { lang = \"go\", dir = \"a,b}\" }\n" +
				"caps = { net = [\"x\"], nested = { deep = 1 } }\n" +
				"list = [{ inarray = 1 }]\n",
			want: map[string]int{
				"scripts.s.build": 2, "scripts.s.build.lang": 2, "scripts.s.build.dir": 2,
				"scripts.s.caps.net": 3, "scripts.s.caps.nested.deep": 3, "scripts.s.list": 4,
			},
			none: []string{"scripts.s.list.inarray", "inarray"},
		},
		{
			name: "array tables and first definition wins",
			src:  "[[a]]\nx = 1\n[[a]]\nx = 2\ny = 3\n",
			want: map[string]int{"a": 1, "a.x": 2, "a.y": 5},
		},
		{
			name: "CRLF, BOM and dates",
			src:  "\uFEFFversion = 1\r\nwhen = 1979-05-27 07:32:00Z\r\nnext = true\r\n",
			want: map[string]int{"version": 1, "when": 2, "next": 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, deep := LocateKeys([]byte(tt.src))
			assert.Zero(t, deep, "too deep at line %d", deep)
			for k, line := range tt.want {
				assert.Equal(t, line, got[k], "line of %s", k)
			}
			for _, k := range tt.none {
				assert.NotContains(t, got, k, "found key %s at line %d; it is not a key", k, got[k])
			}
			// The real parser must agree that the input is TOML, or the
			// test proves nothing.
			_, err := toml.Decode(tt.src, new(map[string]any))
			assert.NoError(t, err, "test input is not valid TOML")
		})
	}
}

func TestKeyLinesFallback(t *testing.T) {
	kl, _ := LocateKeys([]byte("[scripts.s]\nlist = [{ x = 1 }]\n"))
	for _, tt := range []struct {
		key  toml.Key
		want int
	}{
		{toml.Key{"scripts", "s", "list"}, 2},
		{toml.Key{"scripts", "s", "list", "x"}, 2}, // in an array: the array's line
		{toml.Key{"scripts", "s", "missing", "deeper"}, 1},
		{toml.Key{"nowhere"}, 0},
	} {
		assert.Equal(t, tt.want, kl.Line(tt.key), "Line(%s)", tt.key)
	}
}

func TestLocateKeysWithin(t *testing.T) {
	tests := []struct {
		src          string
		parts, depth int
		wantDeep     int
	}{
		{"a.b.c = 1\n", 3, 1, 0},
		{"\na.b.c.d = 1\n", 3, 1, 2},
		{"x = [[1]]\n", 3, 2, 0},
		{"\n\nx = [\n[\n[1]]]\n", 3, 2, 5},
	}
	for _, tt := range tests {
		_, deep := LocateKeysWithin([]byte(tt.src), tt.parts, tt.depth)
		assert.Equal(t, tt.wantDeep, deep, "LocateKeysWithin(%q, %d, %d): too deep at", tt.src, tt.parts, tt.depth)
	}
}
