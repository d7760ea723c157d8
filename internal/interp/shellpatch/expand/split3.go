//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): unquoted name and key lists. mvdan.cc/sh
// joins ${!prefix@} and ${!a[@]} into one string and splits it again, so
// with IFS='' the names or keys stay one field; bash gives one field per
// name or key, as for ${a[@]}.

package expand

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skExclElems returns the fields of an unquoted ${!prefix@}, ${!a[@]} or
// ${!a[*]} before splitting; ok is false for any other expansion. Bash
// joins the keys of ${!a[*]} with IFS's first character, or with a space
// when IFS is empty, then splits the result.
func (cfg *Config) skExclElems(pe *syntax.ParamExp) (elems []string, ok bool, err error) {
	if pe == nil || pe.Param == nil || !pe.Excl || pe.Length || pe.Width || pe.IsSet ||
		pe.Slice != nil || pe.Repl != nil || pe.Exp != nil {
		return nil, false, nil
	}
	if pe.Names == syntax.NamesPrefixWords {
		elems, err := cfg.quotedElemFields(pe)
		return elems, err == nil, err
	}
	if pe.Names != 0 {
		return nil, false, nil
	}
	switch nodeLit(pe.Index) {
	case "@":
		elems, err := cfg.quotedElemFields(pe)
		return elems, err == nil, err
	case "*":
		at := *pe
		at.Index = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "@"}}}
		elems, err := cfg.quotedElemFields(&at)
		if err != nil || len(elems) == 0 {
			return nil, err == nil, err
		}
		sep := " "
		if cfg.ifs != "" {
			sep = cfg.ifsJoin([]string{"", ""}) // IFS's first character
		}
		return []string{strings.Join(elems, sep)}, true, nil
	}
	return nil, false, nil
}

// skGlobDots adds dir's "." and ".." to newMatches when shopt -u
// globskipdots is in effect and the pattern part, which begins with a
// dot, matches them: directory listings never hold those two names, and
// bash matches them like any other entry then (".*" gives ". .. .a").
func (cfg *Config) skGlobDots(part, dir string, matcher func(string) bool, newMatches []string) []string {
	if !cfg.SkGlobDots || !strings.HasPrefix(part, ".") {
		return newMatches
	}
	for _, name := range []string{".", ".."} {
		if matcher(name) {
			newMatches = append(newMatches, pathJoin2(dir, name))
		}
	}
	return newMatches
}
