//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): field splitting as POSIX and bash do it when
// IFS holds characters other than blanks. mvdan.cc/sh treats every IFS
// character as a blank, so IFS=, splits "a,,b" into two fields where
// bash gives three ('a', '', 'b'), and scripts that split CSV lines with
// `IFS=,; set -- $line` or `for f in $line` lose their empty columns and
// shift the others.

package expand

// Where skSplit is in a delimiter: at the start of the word (leading IFS
// blanks are dropped; a non-blank makes an empty first field), after a
// field that IFS blanks ended (a non-blank joins that delimiter), or after
// a non-blank delimiter (another one makes an empty field).
const (
	skSplitStart = iota
	skSplitBlank
	skSplitNonBlank
)

// skSplit splits val into the word's fields: a field open in curField
// goes on with val's first characters; each delimiter (IFS blanks around
// at most one other IFS character) ends one. The last field stays open
// for the word's next parts. state carries where the delimiter is
// between calls.
func (cfg *Config) skSplit(val string, curField *[]fieldPart, state *int, flush func()) {
	fieldStart := -1
	for i, r := range val {
		if !cfg.ifsRune(r) {
			if fieldStart < 0 {
				fieldStart = i
			}
			continue
		}
		open := fieldStart >= 0 || len(*curField) > 0
		if fieldStart >= 0 {
			*curField = append(*curField, fieldPart{val: val[fieldStart:i]})
			fieldStart = -1
		}
		blank := cfg.ifsWhitespace(r)
		switch {
		case open:
			flush()
			*state = skSplitBlank
			if !blank {
				*state = skSplitNonBlank
			}
		case blank:
			// Blanks before, after or within a delimiter.
		case *state == skSplitBlank:
			*state = skSplitNonBlank // the blanks and this are one delimiter
		default:
			// A non-blank delimiter with no field before it: at the
			// start of the word, or right after another one.
			*curField = append(*curField, fieldPart{quote: quoteDouble, val: ""})
			flush()
			*state = skSplitNonBlank
		}
	}
	if fieldStart >= 0 {
		*curField = append(*curField, fieldPart{val: val[fieldStart:]})
	}
}
