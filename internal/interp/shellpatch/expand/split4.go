//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): the elements of unquoted $@, $* and
// ${a[@]} as bash splits them. Bash joins the elements with IFS's first
// character and splits the result, so with IFS=x the empty element of
// `set -- one '' two` is an empty field between 'one' and 'two'
// (mvdan.cc/sh ends a field at each element and drops the empty ones).

package expand

// skElemBreak ends the current element of an unquoted list expansion:
// it splits IFS's first character, as bash's join does, so that a
// non-blank IFS character delimits empty elements. With IFS empty the
// elements are not joined and the field just ends.
func (cfg *Config) skElemBreak(flush func(), splitAdd func(string)) {
	if cfg.ifs == "" {
		flush()
		return
	}
	splitAdd(cfg.ifsJoin([]string{"", ""}))
}
