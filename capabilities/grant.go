package capabilities

import (
	"cmp"
	"slices"
	"strings"
)

// Effective returns declared ∩ granted: what a script may actually use.
//
// Every list kind is intersected exactly, so a use is allowed by the result
// if and only if both declared and granted allow it:
//
//   - read, write: paths nest or are apart ("workspace/data" and
//     "workspace/database" are apart), so each overlapping pair contributes
//     the narrower path. A declared "workspace" with a granted
//     "workspace/data" gives "workspace/data", and the other way round.
//   - net: each overlapping pair contributes its narrower host and its
//     narrower port: "*.example.org" with "api.example.org" gives
//     "api.example.org", and "api.example.com" with "*:443" gives
//     "api.example.com:443". Where one pattern covers the other (see
//     [HostPattern.Covers]) that is simply the narrower pattern.
//   - mcp: "server/*" with "server/tool" gives "server/tool".
//   - env, tools, skills: the names in both.
//   - memory, timeout, output: the smaller when both are set, else whichever
//     is set. A limit only ever narrows, so a granted limit applies even when
//     the skill declared none.
//
// Read and write are intersected separately (a granted write does not grant
// a declared read); see [Set.CheckRead] for how they combine when checked.
//
// Lists in the result are in canonical form: sorted by their text, without
// duplicates, and without an element that another one already covers
// ("workspace/data" beside "workspace", "api.example.org" beside
// "*.example.org", "github/list" beside "github/*"). So Effective(d, d) is
// d for a d in that form, and each read or write path can be mounted on
// its own. Neither argument is modified, and the result shares no memory
// with them.
func Effective(declared, granted Set) Set {
	return Set{
		Read:    reducePaths(intersect(declared.Read, granted.Read, meetPath, Path.String)),
		Write:   reducePaths(intersect(declared.Write, granted.Write, meetPath, Path.String)),
		Env:     intersect(declared.Env, granted.Env, meetName, identity),
		Net:     reduceHosts(intersect(declared.Net, granted.Net, meetHost, HostPattern.String)),
		Tools:   intersect(declared.Tools, granted.Tools, meetName, identity),
		MCP:     reduceMCP(intersect(declared.MCP, granted.MCP, meetMCP, identity)),
		Skills:  intersect(declared.Skills, granted.Skills, meetName, identity),
		Memory:  minLimit(declared.Memory, granted.Memory),
		Timeout: minLimit(declared.Timeout, granted.Timeout),
		Output:  minLimit(declared.Output, granted.Output),
	}
}

// Merge returns the union of a skill-level declaration (the [capabilities]
// table of skill.toml) and a per-script one ([scripts.NAME.capabilities]):
// a script may use what the skill declares plus what the script adds. For
// each limit the per-script value wins when it is set, so a script can
// declare a longer timeout than the skill's default as well as a shorter
// one. Lists in the result are in the canonical form [Effective] describes;
// Merge(s, Set{}) puts any s in that form.
func Merge(skill, script Set) Set {
	return Set{
		Read:    reducePaths(union(skill.Read, script.Read, Path.String)),
		Write:   reducePaths(union(skill.Write, script.Write, Path.String)),
		Env:     union(skill.Env, script.Env, identity),
		Net:     reduceHosts(union(skill.Net, script.Net, HostPattern.String)),
		Tools:   union(skill.Tools, script.Tools, identity),
		MCP:     reduceMCP(union(skill.MCP, script.MCP, identity)),
		Skills:  union(skill.Skills, script.Skills, identity),
		Memory:  cmp.Or(script.Memory, skill.Memory),
		Timeout: cmp.Or(script.Timeout, skill.Timeout),
		Output:  cmp.Or(script.Output, skill.Output),
	}
}

// Missing returns, kind by kind, what declared asks for that granted does
// not cover at all: declared read = ["workspace"] with no read granted gives
// a Missing with Read = ["workspace"]. A kind where any part of the
// declaration is granted is not missing, because the operator narrowed it
// deliberately; limits are never missing. The result is what a prompt
// offers to grant, or what a denial names as the flags to add (see
// [Flags]); it is zero when nothing is missing.
func Missing(declared, granted Set) Set {
	eff := Effective(declared, granted)
	var m Set
	if len(eff.Read) == 0 {
		m.Read = slices.Clone(declared.Read)
	}
	if len(eff.Write) == 0 {
		m.Write = slices.Clone(declared.Write)
	}
	if len(eff.Env) == 0 {
		m.Env = slices.Clone(declared.Env)
	}
	if len(eff.Net) == 0 {
		m.Net = slices.Clone(declared.Net)
	}
	if len(eff.Tools) == 0 {
		m.Tools = slices.Clone(declared.Tools)
	}
	if len(eff.MCP) == 0 {
		m.MCP = slices.Clone(declared.MCP)
	}
	if len(eff.Skills) == 0 {
		m.Skills = slices.Clone(declared.Skills)
	}
	return m
}

// Covers reports whether p allows every connection o allows (o ⊆ p, as
// sets of host and port): "*.example.org" covers "api.example.org" and
// "*.a.example.org" but not "example.org"; "*" covers every host but one
// that names a special-purpose address or localhost ("127.0.0.1", "[::1]",
// "localhost"), whose address only a grant naming it reaches (see
// [HostPattern]); a pattern with a port covers only patterns with that
// same port, and one without a port covers any port. When p.Covers(o),
// every host and port o matches, p matches too ([HostPattern.Match]).
func (p HostPattern) Covers(o HostPattern) bool {
	if p.Port != 0 && p.Port != o.Port {
		return false
	}
	if p.Wildcard && o.namesAddr() {
		// A wildcard matches the name but never connects to the address.
		return false
	}
	switch {
	case !p.Wildcard:
		return !o.Wildcard && o.Host == p.Host
	case p.Host == "":
		return true
	case o.Wildcard && o.Host == "":
		return false
	case o.Wildcard && o.Host == p.Host:
		return true
	}
	prefix, ok := strings.CutSuffix(o.Host, "."+p.Host)
	return ok && prefix != ""
}

// intersect returns every non-empty meet of an element of a with one of b,
// sorted by key and without duplicates. A nil result means "none".
func intersect[T any](a, b []T, meet func(x, y T) (T, bool), key func(T) string) []T {
	var out []T
	for _, x := range a {
		for _, y := range b {
			if m, ok := meet(x, y); ok {
				out = append(out, m)
			}
		}
	}
	return normalize(out, key)
}

// union returns the elements of a and b, sorted by key and without
// duplicates.
func union[T any](a, b []T, key func(T) string) []T {
	return normalize(append(slices.Clone(a), b...), key)
}

// normalize sorts list by key and drops repeated keys, in place.
func normalize[T any](list []T, key func(T) string) []T {
	if len(list) == 0 {
		return nil
	}
	slices.SortStableFunc(list, func(x, y T) int { return strings.Compare(key(x), key(y)) })
	return slices.CompactFunc(list, func(x, y T) bool { return key(x) == key(y) })
}

func identity(s string) string { return s }

// reducePaths drops from a sorted, duplicate-free list every path that
// another one contains, keeping the order.
func reducePaths(list []Path) []Path {
	if len(list) < 2 {
		return list
	}
	// In tree order (segment by segment, "/" before any other byte) a
	// path's descendants follow it, before anything else.
	tree := slices.Clone(list)
	treeKey := func(p Path) string { return strings.ReplaceAll(p.Sub, "/", "\x00") }
	slices.SortFunc(tree, func(x, y Path) int {
		return cmp.Or(cmp.Compare(x.Root, y.Root), strings.Compare(treeKey(x), treeKey(y)))
	})
	keep := make(map[Path]bool, len(tree))
	last := tree[0]
	keep[last] = true
	for _, p := range tree[1:] {
		if !last.Contains(p) {
			keep[p] = true
			last = p
		}
	}
	return slices.DeleteFunc(list, func(p Path) bool { return !keep[p] })
}

// reduceHosts drops from a duplicate-free list every pattern that another
// one covers, keeping the order. Only a pattern's ancestors can cover it:
// the same host, "*." and each dot-suffix of it, and "*", each with no port
// or the same port; so each is looked up rather than compared with all.
func reduceHosts(list []HostPattern) []HostPattern {
	if len(list) < 2 {
		return list
	}
	present := make(map[HostPattern]bool, len(list))
	for _, p := range list {
		present[p] = true
	}
	coveredByOther := func(p HostPattern) bool {
		var hosts []HostPattern
		hosts = append(hosts, HostPattern{Host: p.Host, Wildcard: p.Wildcard})
		for i := 0; i < len(p.Host); i++ {
			if p.Host[i] == '.' && i > 0 && i+1 < len(p.Host) {
				hosts = append(hosts, HostPattern{Host: p.Host[i+1:], Wildcard: true})
			}
		}
		hosts = append(hosts, HostPattern{Wildcard: true})
		for _, h := range hosts {
			for _, port := range []int{0, p.Port} {
				h.Port = port
				if h != p && present[h] && h.Covers(p) {
					return true
				}
			}
		}
		return false
	}
	return slices.DeleteFunc(list, coveredByOther)
}

// reduceMCP drops "server/tool" from a list that has "server/*".
func reduceMCP(list []string) []string {
	if len(list) < 2 {
		return list
	}
	wild := make(map[string]bool)
	for _, p := range list {
		if server, ok := strings.CutSuffix(p, "/*"); ok {
			wild[server] = true
		}
	}
	return slices.DeleteFunc(list, func(p string) bool {
		server, tool, _ := strings.Cut(p, "/")
		return tool != "*" && wild[server]
	})
}

// meetPath returns the narrower of two nested paths.
func meetPath(x, y Path) (Path, bool) {
	switch {
	case x.Contains(y):
		return y, true
	case y.Contains(x):
		return x, true
	}
	return Path{}, false
}

func meetName(x, y string) (string, bool) { return x, x == y }

// meetHost returns the pattern matching exactly what both x and y match.
// Host parts nest or are apart ("a.example.org", "*.example.org", "*"),
// so the meet is the narrower host with the narrower port.
func meetHost(x, y HostPattern) (HostPattern, bool) {
	xh, yh := x, y
	xh.Port, yh.Port = 0, 0
	var m HostPattern
	switch {
	case xh.Covers(yh):
		m = yh
	case yh.Covers(xh):
		m = xh
	default:
		return HostPattern{}, false
	}
	switch {
	case x.Port == 0:
		m.Port = y.Port
	case y.Port == 0 || y.Port == x.Port:
		m.Port = x.Port
	default:
		return HostPattern{}, false
	}
	return m, true
}

// meetMCP returns the narrower of two MCP patterns that overlap:
// "s/*" and "s/t" meet in "s/t".
func meetMCP(x, y string) (string, bool) {
	xs, xt, xok := strings.Cut(x, "/")
	ys, yt, yok := strings.Cut(y, "/")
	switch {
	case !xok || !yok || xs != ys:
		return "", false
	case xt == yt || yt == "*":
		return x, true
	case xt == "*":
		return y, true
	}
	return "", false
}

// minLimit returns the smaller of two limits, where zero means unset.
func minLimit[T Size | Duration](a, b T) T {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}
