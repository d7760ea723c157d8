//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/interp, like fds.go:
// bash's alias and unalias (a missing name is an error, unalias -a,
// listings sorted and quoted as bash prints them, the text as written)
// and expansion of an alias whose first word is another alias.

package interp

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skAliases expands the aliases of a simple command's words: the first
// word, again while the expansion's first word is an alias not yet
// expanded (alias hi='e_ x'; alias e_='echo'), and the next word after
// an alias whose value ends in a blank.
func (r *Runner) skAliases(args []*syntax.Word) []*syntax.Word {
	if !r.opts[optExpandAliases] {
		return args
	}
	seen := map[string]bool{}
	for i := 0; i < len(args); {
		name := args[i].Lit()
		als, ok := r.alias[name]
		if !ok || seen[name] {
			break
		}
		seen[name] = true
		args = slices.Concat(args[:i], als.args, args[i+1:])
		if len(als.args) > 0 {
			if _, again := r.alias[als.args[0].Lit()]; again && !seen[als.args[0].Lit()] {
				continue
			}
		}
		if !als.blank {
			break
		}
		i += len(als.args)
		clear(seen)
	}
	return args
}

// skAliasQuote quotes an alias's text as bash's alias listing does.
func skAliasQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// skAlias is bash's alias builtin.
func (r *Runner) skAlias(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	show := func(name string) bool {
		als, ok := r.alias[name]
		if !ok {
			r.errf("%salias: %s: not found\n", r.skErrPrefix(pos), name)
			exit.code = 1
			return false
		}
		r.outf("alias %s=%s\n", name, skAliasQuote(als.src))
		return true
	}
	if len(args) > 0 && args[0] == "-p" {
		args = args[1:]
		if len(args) == 0 {
			args = nil
		}
	}
	if len(args) == 0 {
		for _, name := range slices.Sorted(maps.Keys(r.alias)) {
			show(name)
		}
		return exit
	}
	for _, arg := range args {
		name, src, ok := strings.Cut(arg, "=")
		if !ok {
			show(name)
			continue
		}
		if name == "" || strings.ContainsAny(name, "/$`=\"' \t\n\\") {
			r.errf("%salias: `%s': invalid alias name\n", r.skErrPrefix(pos), name)
			exit.code = 1
			continue
		}
		var words []*syntax.Word
		for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(src)) {
			if err != nil {
				words = nil
				break
			}
			words = append(words, w)
		}
		if r.alias == nil {
			r.alias = make(map[string]alias)
		}
		r.alias[name] = alias{args: words, blank: strings.TrimRight(src, " \t") != src, src: src}
	}
	return exit
}

// skUnalias is bash's unalias builtin.
func (r *Runner) skUnalias(pos syntax.Pos, args []string) exitStatus {
	var exit exitStatus
	if len(args) == 0 {
		r.errf("%sunalias: usage: unalias [-a] name [name ...]\n", r.skErrPrefix(pos))
		exit.code = 2
		return exit
	}
	if args[0] == "-a" {
		clear(r.alias)
		return exit
	}
	for _, name := range args {
		if _, ok := r.alias[name]; !ok {
			r.errf("%sunalias: %s: not found\n", r.skErrPrefix(pos), name)
			exit.code = 1
			continue
		}
		delete(r.alias, name)
	}
	return exit
}
