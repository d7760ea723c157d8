//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): double-quoted ${v:-word} and ${v+word}
// whose chosen word holds a list expansion ("${u[@]:-${a[@]}}"), which
// bash expands to one field per element, as the list alone would.

package expand

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skOpListFields is the fields of the double-quoted pe when it is a
// -/+ operator whose chosen word holds "$@"-like parts: each element a
// field, the first and last joined to the word's text around them. ok
// is false (nothing done) for any other expansion.
func (cfg *Config) skOpListFields(pe *syntax.ParamExp) (fields []string, ok bool, err error) {
	if pe == nil {
		return nil, false, nil
	}
	r, err := cfg.skOpTest(pe, true)
	if err != nil || !r.ok || r.word == nil {
		return nil, false, err
	}
	parts := skDquoteOpWord(r.word)
	if !cfg.skHasListPart(parts) {
		return nil, false, nil
	}
	if len(parts) == 1 {
		fields, err = cfg.quotedElemFields(parts[0].(*syntax.ParamExp))
		return skAtLeastOneField(fields), true, err
	}
	var cur []fieldPart
	flush := func() {
		var sb strings.Builder
		for _, fp := range cur {
			sb.WriteString(fp.val)
		}
		fields = append(fields, sb.String())
		cur = cur[:0]
	}
	_, empty, err := cfg.skQuotedLists(parts, &cur, flush)
	if err != nil {
		return nil, true, err
	}
	if !empty {
		flush()
	}
	return skAtLeastOneField(fields), true, nil
}

// skAtLeastOneField is fields, or one empty field when there is none:
// unlike "${a[@]}" alone, a chosen word expanding to no element still
// makes a field in bash.
func skAtLeastOneField(fields []string) []string {
	if len(fields) == 0 {
		return []string{""}
	}
	return fields
}
