//go:build ignore

// This file is written into the shell build's copy of gojq (see
// internal/interp/shell.go, gojqOrderHooks): jq keeps the keys of an
// object in the order they were inserted and prints them that way
// (sorting only for keys, -S and comparisons); gojq represents objects
// as Go maps, which have no order, and sorts every object it prints or
// iterates. So `jq .` reordered every object of a file, and `.[]`,
// to_entries, add and match gave their results in another order than
// the jq 1.6 that published scripts were written against.
//
// Objects stay map[string]any, which the rest of gojq (and its callers)
// rely on. Beside them, a registry holds each object's key order by the
// object's identity (the address of its map header, as gojq's own
// allocator tracks objects), written where gojq builds an object (JSON
// input, object construction, +, *, setpath, add, match) and read where
// it prints or iterates one. An entry is dropped by a cleanup when its
// object is collected, and a generation number keeps a cleanup that runs
// late (after the address was reused) from dropping the new object's
// entry. An object with no entry, or whose entry no longer names all its
// keys, falls back to gojq's sorted order for the keys it lacks.

package gojq

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

type skOrder struct {
	keys []string // may hold keys deleted since, and a key twice
	gen  uint64
}

type skOrderRef struct {
	addr uintptr
	gen  uint64
}

var (
	skOrderMu  sync.Mutex
	skOrders   = map[uintptr]skOrder{}
	skOrderGen uint64
)

func skAddr(m map[string]any) unsafe.Pointer {
	return reflect.ValueOf(m).UnsafePointer()
}

// skSetOrder records keys (which the registry owns from now on) as m's
// key order.
func skSetOrder(m map[string]any, keys []string) {
	if m == nil {
		return
	}
	p := skAddr(m)
	skOrderMu.Lock()
	if len(keys) < 2 || slices.IsSorted(keys) {
		// Sorted order is what an object without an entry gets: no
		// entry (and no cleanup) is needed, which keeps the registry
		// small for single keys and already sorted records. An entry
		// left by a collected object at this address must not apply to
		// this one.
		delete(skOrders, uintptr(p))
		skOrderMu.Unlock()
		return
	}
	skOrderGen++
	g := skOrderGen
	skOrders[uintptr(p)] = skOrder{keys: keys, gen: g}
	skOrderMu.Unlock()
	runtime.AddCleanup((*byte)(p), skDropOrder, skOrderRef{uintptr(p), g})
}

func skDropOrder(r skOrderRef) {
	skOrderMu.Lock()
	if e, ok := skOrders[r.addr]; ok && e.gen == r.gen {
		delete(skOrders, r.addr)
	}
	skOrderMu.Unlock()
}

// skAppendKey records k, about to be added to m in place, as m's last
// key.
func skAppendKey(m map[string]any, k string) {
	p := uintptr(skAddr(m))
	skOrderMu.Lock()
	e, ok := skOrders[p]
	if ok {
		e.keys = append(e.keys, k)
		skOrders[p] = e
	}
	skOrderMu.Unlock()
	if !ok {
		skSetOrder(m, append(skKeys(m), k))
	}
}

// skKeys returns m's keys in their order: the recorded order of those
// still in m (a key recorded twice, deleted and added again, counts
// where it was added last), then any not recorded, sorted.
func skKeys(m map[string]any) []string {
	if len(m) >= 2 {
		skOrderMu.Lock()
		e, ok := skOrders[uintptr(skAddr(m))]
		skOrderMu.Unlock()
		if ok {
			ks := make([]string, 0, len(m))
			for _, k := range e.keys {
				if _, ok := m[k]; ok {
					ks = append(ks, k)
				}
			}
			if len(ks) != len(m) {
				ks = skLastUnique(ks)
			}
			if len(ks) == len(m) {
				return ks
			}
			if len(ks) > 0 {
				seen := make(map[string]struct{}, len(ks))
				for _, k := range ks {
					seen[k] = struct{}{}
				}
				var rest []string
				for k := range m {
					if _, ok := seen[k]; !ok {
						rest = append(rest, k)
					}
				}
				slices.Sort(rest)
				return append(ks, rest...)
			}
		}
	}
	return keys(m)
}

// skLastUnique keeps the last of each repeated key.
func skLastUnique(ks []string) []string {
	seen := make(map[string]struct{}, len(ks))
	out := make([]string, 0, len(ks))
	for i := len(ks) - 1; i >= 0; i-- {
		if _, ok := seen[ks[i]]; !ok {
			seen[ks[i]] = struct{}{}
			out = append(out, ks[i])
		}
	}
	slices.Reverse(out)
	return out
}

// skFirstUnique keeps the first of each repeated key: an object literal
// or JSON text naming a key twice has it where it was first named (and
// the last value), as in jq.
func skFirstUnique(ks []string) []string {
	seen := make(map[string]struct{}, len(ks))
	out := ks[:0]
	for _, k := range ks {
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return out
}

// skCopyOrder gives dst, a copy of src with extra keys added, src's
// order followed by the extra keys src lacks.
func skCopyOrder(dst, src map[string]any, extra ...string) {
	ks := skKeys(src)
	for _, k := range extra {
		if _, ok := src[k]; !ok && !slices.Contains(ks[len(src):], k) {
			ks = append(ks, k)
		}
	}
	skSetOrder(dst, ks)
}

// skJoin is the order of l + r: l's keys, then r's that l lacks.
func skJoin(l, r map[string]any) []string {
	ks := skKeys(l)
	for _, k := range skKeys(r) {
		if _, ok := l[k]; !ok {
			ks = append(ks, k)
		}
	}
	return ks
}

// skByOrder compares two of m's entries (key gives an entry's key) by
// m's key order, for slices.SortFunc; tie (strings.Compare) orders keys
// m does not have, which never happens for m's own entries.
func skByOrder[T any](m map[string]any, key func(T) string, tie func(a, b string) int) func(x, y T) int {
	rank := make(map[string]int, len(m))
	for i, k := range skKeys(m) {
		rank[k] = i + 1
	}
	return func(x, y T) int {
		kx, ky := key(x), key(y)
		if d := rank[kx] - rank[ky]; d != 0 {
			return d
		}
		return tie(kx, ky)
	}
}

// skKeysUnsorted is jq's keys_unsorted: the keys in the object's order.
func skKeysUnsorted(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		if _, ok := v.([]any); ok {
			return funcKeys(v)
		}
		return &func0TypeError{"keys_unsorted", v}
	}
	ks := skKeys(m)
	w := make([]any, len(ks))
	for i, k := range ks {
		w[i] = k
	}
	return w
}

// skMatchOrder orders match's objects as jq prints them.
func skMatchOrder(res []any) {
	for _, r := range res {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		skSetOrder(m, []string{"offset", "length", "string", "captures"})
		cs, _ := m["captures"].([]any)
		for _, c := range cs {
			if c, ok := c.(map[string]any); ok {
				skSetOrder(c, []string{"offset", "length", "string", "name"})
			}
		}
	}
}

// skCapturesOrder orders capture's object by the groups' order.
func skCapturesOrder(w map[string]any, captures []any) {
	var ks []string
	for _, c := range captures {
		if c, ok := c.(map[string]any); ok {
			if name, ok := c["name"].(string); ok {
				ks = append(ks, name)
			}
		}
	}
	skSetOrder(w, skFirstUnique(ks))
}

// skEnvOrder orders $ENV as the environment lists it.
func skEnvOrder(env map[string]any, environ []string) {
	var ks []string
	for _, kv := range environ {
		for i := 1; i < len(kv); i++ {
			if kv[i] == '=' {
				ks = append(ks, kv[:i])
				break
			}
		}
	}
	skSetOrder(env, skFirstUnique(ks))
}

// SkillrunSetOrder records keys as m's key order (skillrun's jq command:
// $ARGS and -S).
func SkillrunSetOrder(m map[string]any, keys []string) {
	skSetOrder(m, slices.Clone(keys))
}

// SkillrunDecode reads the next JSON value of dec, numbers as
// json.Number, with each object's key order kept: encoding/json decodes
// the value (its errors, offsets and depth limit are the decoder's:
// io.EOF at the end of the input, io.ErrUnexpectedEOF inside a value),
// then one pass over its text records the orders.
func SkillrunDecode(dec *json.Decoder) (any, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	vd := json.NewDecoder(bytes.NewReader(raw))
	vd.UseNumber()
	var v any
	if err := vd.Decode(&v); err != nil {
		return nil, err
	}
	skWalk(raw, v)
	return v, nil
}

// skWalk records the key order of each object of v from d, the valid
// JSON text v was decoded from, and returns the text after v. Where v
// does not have the text's shape (a key given twice: v holds the last
// value), the text is only skipped: the last occurrence, walked after,
// records its own order.
func skWalk(d []byte, v any) []byte {
	if d = skSpace(d); len(d) == 0 {
		return d
	}
	switch d[0] {
	case '{':
		m, _ := v.(map[string]any)
		var ks []string
		d = d[1:]
		for {
			if d = skSpace(d); len(d) == 0 {
				return nil
			}
			switch d[0] {
			case '}':
				if m != nil {
					skSetOrder(m, skFirstUnique(ks))
				}
				return d[1:]
			case ',':
				d = d[1:]
				continue
			}
			k, rest := skString(d)
			if d = skSpace(rest); len(d) == 0 {
				return nil
			}
			d = d[1:] // the colon
			var x any
			if m != nil {
				ks = append(ks, k)
				x = m[k]
			}
			d = skWalk(d, x)
		}
	case '[':
		a, _ := v.([]any)
		d = d[1:]
		for i := 0; ; {
			if d = skSpace(d); len(d) == 0 {
				return nil
			}
			switch d[0] {
			case ']':
				return d[1:]
			case ',':
				d = d[1:]
				continue
			}
			var x any
			if i < len(a) {
				x = a[i]
			}
			d = skWalk(d, x)
			i++
		}
	case '"':
		_, rest := skString(d)
		return rest
	}
	for len(d) > 0 && !strings.ContainsRune(" \t\r\n,]}", rune(d[0])) {
		d = d[1:] // a number, true, false or null
	}
	return d
}

func skSpace(d []byte) []byte {
	for len(d) > 0 && (d[0] == ' ' || d[0] == '\t' || d[0] == '\r' || d[0] == '\n') {
		d = d[1:]
	}
	return d
}

// skString reads the JSON string d starts with.
func skString(d []byte) (string, []byte) {
	esc := false
	for i := 1; i < len(d); i++ {
		switch d[i] {
		case '\\':
			esc = true
			i++
		case '"':
			if !esc {
				return string(d[1:i]), d[i+1:]
			}
			var s string
			_ = json.Unmarshal(d[:i+1], &s)
			return s, d[i+1:]
		}
	}
	return "", nil
}

// Numbers print as jq 1.6 prints them: jq holds every number as a
// double and prints the shortest digits that read back to it, in
// exponent form (1e+17, 1e-05) when the decimal point would fall more
// than 15 places past the digits or 4 before them. gojq keeps input
// numbers as their text (1.0, 2.50) and large integers exact, so a
// script's output differed from the jq its author ran.

func (e *encoder) skNumber(f float64) {
	e.w.WriteString(skFormatNumber(f))
}

// skFormatNumber formats f as jq 1.6 does (NaN as null; infinities as
// the largest double).
func skFormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "null"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	f = min(max(f, -math.MaxFloat64), math.MaxFloat64)
	s := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±dd
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	nd, decpt := len(digits), x+1
	switch {
	case decpt <= -4 || decpt > nd+15:
		es := strconv.Itoa(max(x, -x))
		if len(es) < 2 {
			es = "0" + es
		}
		esign := "+"
		if x < 0 {
			esign = "-"
		}
		return sign + mant + "e" + esign + es
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= nd:
		return sign + digits + strings.Repeat("0", decpt-nd)
	default:
		return sign + digits[:decpt] + "." + digits[decpt:]
	}
}

func skBigFloat(v *big.Int) float64 {
	f, _ := new(big.Float).SetInt(v).Float64()
	return f
}

func skNumberFloat(v json.Number) float64 {
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}
