// Package skillname compares skill names the way a reader sees them.
package skillname

import (
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Key returns the form under which two skill names count as the same
// name: NFKC, case folded, NFKC again (Unicode's NFKC_Casefold, without
// removing default-ignorable code points). "deploy", "Deploy" and the
// full-width "ｄｅｐｌｏｙ" share a key, so a look-alike collides with the
// name it imitates instead of standing beside it. Keys are for comparing
// only; show a name as written, escaped.
func Key(name string) string {
	return norm.NFKC.String(cases.Fold().String(norm.NFKC.String(name)))
}
