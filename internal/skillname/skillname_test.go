package skillname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKey(t *testing.T) {
	same := [][2]string{
		{"deploy", "deploy"},
		{"deploy", "Deploy"},
		{"deploy", "DEPLOY"},
		{"deploy", "ｄｅｐｌｏｙ"}, // full-width
		{"deploy", "ｄeploy"}, // one full-width letter
		{"strasse", "STRASSE"},
		{"straße", "strasse"},  // case folding maps ß to ss
		{"ﬁle", "file"},        // NFKC expands the ligature
		{"café", "cafe\u0301"}, // composed and decomposed
	}
	for _, p := range same {
		assert.Equal(t, Key(p[0]), Key(p[1]), "Key(%q) and Key(%q): want the same", p[0], p[1])
	}
	differ := [][2]string{{"deploy", "deploy2"}, {"deploy", "dep-loy"}, {"a", "b"}}
	for _, p := range differ {
		assert.NotEqual(t, Key(p[0]), Key(p[1]), "Key(%q) and Key(%q): want different", p[0], p[1])
	}
}
