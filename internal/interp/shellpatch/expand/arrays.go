//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go and shellhooks_arrays.go): bash's arrays
// where mvdan.cc/sh differs. An out-of-range negative index,
// ${a[-5]} or $((a[-5])), is a warning ("a: bad array subscript") and
// expands to nothing, where mvdan.cc/sh failed the whole command line;
// a[i]+=s appends to element i (mvdan.cc/sh appended to element 0).

package expand

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skBadSubscript is varInd's out-of-range negative index, which the
// expansion warns about and expands to nothing.
type skBadSubscript struct{}

func (skBadSubscript) Error() string { return "bad array subscript" }

// skWarnf writes a warning of bash's for the script's line at pos, and
// lets the expansion go on.
func (cfg *Config) skWarnf(pos syntax.Pos, format string, a ...any) {
	if cfg.SkWarn != nil {
		cfg.SkWarn(pos, fmt.Sprintf(format, a...))
	}
}

// SkillrunElem is the value of the element idx of vr ("" when it is
// unset), which a[idx]+=s appends to. Its error is bash's for an
// out-of-range negative index.
func SkillrunElem(cfg *Config, vr Variable, idx syntax.ArithmExpr) (string, error) {
	s, _, err := cfg.varInd(vr, idx)
	return s, err
}

// skFields is a list expansion's fields: never nil, which callers read
// as an expansion that is not a list.
func skFields(elems []string) []string {
	if elems == nil {
		return []string{}
	}
	return elems
}

// skAtQ is ${x@Q}: str quoted, or each of elems for ${a[@]@Q} and
// ${a[*]@Q} (joined by join); an unset x is nothing.
func skAtQ(str string, elems []string, all, set bool, join func([]string) string) string {
	if all {
		return join(skQuoteElems(elems))
	}
	if !set {
		return ""
	}
	return skQuote(str)
}

// skQuoteElems is each of elems quoted as ${x@Q} does.
func skQuoteElems(elems []string) []string {
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = skQuote(e)
	}
	return out
}

// skQuote quotes s as bash's ${x@Q}: in single quotes, or as $'...'
// when it has control characters.
func skQuote(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return SkANSIQuote(s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
