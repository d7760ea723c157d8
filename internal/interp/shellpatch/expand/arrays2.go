//go:build ignore

package expand

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// skAssocBuckets is the size of bash's hash table of an associative
// array (ASSOC_HASH_BUCKETS).
const skAssocBuckets = 1024

// skAssocBucket is the bucket bash puts key in: its 32-bit FNV-1 hash
// (bash's hash_string, over signed chars) modulo the bucket count.
func skAssocBucket(key string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h *= 16777619
		h ^= uint32(int32(int8(key[i])))
	}
	return h & (skAssocBuckets - 1)
}

// SkillrunAssocKeys are the keys of an associative array in the order
// bash lists them (${!A[@]}, ${A[@]}, declare -p): by hash bucket.
// Scripts print arrays without sorting them, so a sorted order showed
// different output than bash. Keys sharing a bucket are in bash newest
// first; their insertion order is not kept, so they go by key.
func SkillrunAssocKeys(m map[string]string) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(skAssocBucket(a), skAssocBucket(b)), cmp.Compare(a, b))
	})
	return keys
}

// skAssocOrderedValues are the values of m in the order of its keys.
func skAssocOrderedValues(m map[string]string) []string {
	keys := SkillrunAssocKeys(m)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return vals
}

// SkillrunAssignTildes returns an assignment's value w with each tilde
// prefix bash expands there replaced by its home directory, quoted:
// the one at the start and each one after an unquoted ':' (x=~/a:~/b,
// PATH=$PATH:~/bin), a prefix ending at ':' or '/' or the word's end.
// mvdan.cc/sh only expanded a leading ~ that a '/' or the end followed.
func SkillrunAssignTildes(cfg *Config, w *syntax.Word) *syntax.Word {
	if w == nil {
		return nil
	}
	var parts []syntax.WordPart
	for i, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value, "~") {
			if parts != nil {
				parts = append(parts, p)
			}
			continue
		}
		out := cfg.skLitTildes(lit, i == 0, i == len(w.Parts)-1)
		if out == nil {
			if parts != nil {
				parts = append(parts, p)
			}
			continue
		}
		if parts == nil {
			parts = append(make([]syntax.WordPart, 0, len(w.Parts)+len(out)), w.Parts[:i]...)
		}
		parts = append(parts, out...)
	}
	if parts == nil {
		return w
	}
	nw := *w
	nw.Parts = parts
	return &nw
}

// skLitTildes expands the tilde prefixes of lit, a part of an
// assignment's value (the first part if first, the last if last), or
// returns nil if there are none to expand. The result starts with a
// Lit, so a word's leading tilde is not looked at again.
func (cfg *Config) skLitTildes(lit *syntax.Lit, first, last bool) []syntax.WordPart {
	s := lit.Value
	var out []syntax.WordPart
	done := 0 // s[:done] is in out
	for i := 0; i < len(s); i++ {
		if s[i] != '~' || !(i == 0 && first || i > 0 && s[i-1] == ':' && (i < 2 || s[i-2] != '\\')) {
			continue
		}
		end := strings.IndexAny(s[i:], ":/")
		if end < 0 {
			if !last {
				break // the prefix goes on into a quoted or expanded part
			}
			end = len(s)
		} else {
			end += i
		}
		home, rest := cfg.expandUser(s[i:end], false)
		if home == "" && rest == s[i:end] {
			continue // no such user: the tilde stays
		}
		out = append(out,
			&syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s[done:i]},
			&syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: home})
		done = end
		i = end - 1
	}
	if out == nil {
		return nil
	}
	if done < len(s) {
		out = append(out, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s[done:]})
	}
	return out
}

// skSliceCheck is bash's error for a negative length in a slice of an
// array or of the positional parameters, ${a[@]:1:-3}, which fails the
// command ("substring expression < 0"); mvdan.cc/sh gave fields. A
// string's negative length counts from its end and is no error. Only a
// length without side effects is evaluated here, as the slice evaluates
// it again.
func (cfg *Config) skSliceCheck(pe *syntax.ParamExp) error {
	if pe == nil || pe.Slice == nil || pe.Slice.Length == nil || pe.Param == nil || !skPureArith(pe.Slice.Length, 0) {
		return nil
	}
	switch p := pe.Param.Value; {
	case p == "@" || p == "*":
	case pe.Index != nil && (nodeLit(pe.Index) == "@" || nodeLit(pe.Index) == "*"):
	default:
		return nil
	}
	n, err := Arithm(cfg, pe.Slice.Length)
	if err != nil || n >= 0 {
		return nil // the slice reports an error itself
	}
	var b strings.Builder
	skArithText(&b, pe.Slice.Length)
	return SkillrunCommandError{b.String() + ": substring expression < 0"}
}

// skPureArith reports whether evaluating x changes nothing: no
// assignment, ++ or --, and words that are literals or plain
// parameters. depth bounds the recursion.
func skPureArith(x syntax.ArithmExpr, depth int) bool {
	if depth > 100 {
		return false
	}
	switch x := x.(type) {
	case *syntax.Word:
		for _, p := range x.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
			case *syntax.ParamExp:
				if p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil || p.Excl {
					return false
				}
			default:
				return false
			}
		}
		return true
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
			syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
			syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
			return false
		}
		return skPureArith(x.X, depth+1) && skPureArith(x.Y, depth+1)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && skPureArith(x.X, depth+1)
	case *syntax.ParenArithm:
		return skPureArith(x.X, depth+1)
	}
	return false
}
