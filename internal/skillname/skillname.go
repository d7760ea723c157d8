// Package skillname compares skill names the way a reader sees them.
package skillname

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Key returns the form under which two skill names count as the same
// name: Unicode's NFKC_Casefold, approximately: NFKC, case folded, NFKC
// again, with the code points that show as nothing removed (format
// characters such as zero-width spaces and bidi controls, variation
// selectors, other default-ignorables). "deploy", "Deploy", the
// full-width "ｄｅｐｌｏｙ" and "deploy" followed by U+200B share a key, so
// a look-alike collides with the name it imitates instead of standing
// beside it. Keys are for comparing only; show a name as written,
// escaped.
func Key(name string) string {
	s := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(name)))
	return strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
			return -1
		}
		return r
	}, s)
}
