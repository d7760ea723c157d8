package capabilities

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseSet decodes a [capabilities] table written in TOML, so that tables
// of sets read like skill.toml.
func parseSet(t *testing.T, src string) Set {
	t.Helper()
	var s Set
	md, err := toml.Decode(src, &s)
	require.NoError(t, err, "decoding %q", src)
	require.Empty(t, md.Undecoded(), "decoding %q: unknown keys", src)
	require.NoError(t, s.Validate(), "decoding %q", src)
	return s
}

func TestEffective(t *testing.T) {
	tests := []struct {
		name              string
		declared, granted string
		want              string
	}{
		{"nothing granted", `read = ["workspace"]
env = ["LANG"]`, ``, ``},
		{"nothing declared", ``, `read = ["workspace"]
env = ["LANG"]`, ``},
		{"same", `read = ["skill", "workspace"]`, `read = ["workspace", "skill"]`, `read = ["skill", "workspace"]`},

		// Paths: the narrower of each nested pair, either way round.
		{"granted sub-path narrows", `read = ["workspace"]`, `read = ["workspace/data"]`, `read = ["workspace/data"]`},
		{"declared sub-path stays", `read = ["workspace/data"]`, `read = ["workspace"]`, `read = ["workspace/data"]`},
		{"sibling prefix is apart", `read = ["workspace/data"]`, `read = ["workspace/database"]`, ``},
		{"sibling prefix is apart, reversed", `read = ["workspace/database"]`, `read = ["workspace/data"]`, ``},
		{"roots are apart", `read = ["skill"]`, `read = ["workspace"]`, ``},
		{"several pairs", `read = ["skill", "workspace"]`, `read = ["workspace/out", "skill/references", "workspace/data"]`,
			`read = ["skill/references", "workspace/data", "workspace/out"]`},
		{"deduplicated", `read = ["workspace", "workspace/data"]`, `read = ["workspace/data"]`, `read = ["workspace/data"]`},
		{"covered entries dropped", `read = ["workspace", "workspace/data"]`, `read = ["workspace"]`, `read = ["workspace"]`},
		{"covered entries dropped, deep", `read = ["workspace/a-b", "workspace/a/b", "workspace/a", "skill"]`, `read = ["workspace", "skill/x"]`,
			`read = ["skill/x", "workspace/a", "workspace/a-b"]`},
		{"write narrows", `write = ["workspace"]`, `write = ["workspace/out"]`, `write = ["workspace/out"]`},
		{"read and write apart", `read = ["workspace"]`, `write = ["workspace"]`, ``},
		{"write and read apart", `write = ["workspace"]`, `read = ["workspace"]`, ``},

		// Names: exactly those in both.
		{"env", `env = ["LANG", "TZ", "HOME"]`, `env = ["TZ", "LANG", "lang", "PATH"]`, `env = ["LANG", "TZ"]`},
		{"tools", `tools = ["workspace_read", "shell"]`, `tools = ["workspace_read"]`, `tools = ["workspace_read"]`},
		{"skills", `skills = ["pdf-extract"]`, `skills = ["pdf-extract", "other"]`, `skills = ["pdf-extract"]`},
		{"names apart", `tools = ["a"]`, `tools = ["b"]`, ``},

		// Hosts: narrower host and narrower port.
		{"same host", `net = ["api.example.com"]`, `net = ["api.example.com"]`, `net = ["api.example.com"]`},
		{"granted wildcard covers declared", `net = ["api.example.org"]`, `net = ["*.example.org"]`, `net = ["api.example.org"]`},
		{"declared wildcard covers granted", `net = ["*.example.org"]`, `net = ["api.example.org"]`, `net = ["api.example.org"]`},
		{"wildcard excludes apex", `net = ["*.example.org"]`, `net = ["example.org"]`, ``},
		{"apex excludes wildcard", `net = ["example.org"]`, `net = ["*.example.org"]`, ``},
		{"nested wildcards", `net = ["*.example.org"]`, `net = ["*.a.example.org"]`, `net = ["*.a.example.org"]`},
		{"star covers all", `net = ["api.example.com", "*.example.org:443"]`, `net = ["*"]`, `net = ["*.example.org:443", "api.example.com"]`},
		{"declared star", `net = ["*"]`, `net = ["api.example.com:8443"]`, `net = ["api.example.com:8443"]`},
		{"granted port narrows", `net = ["api.example.com"]`, `net = ["api.example.com:443"]`, `net = ["api.example.com:443"]`},
		{"declared port stays", `net = ["api.example.com:443"]`, `net = ["api.example.com"]`, `net = ["api.example.com:443"]`},
		{"ports apart", `net = ["api.example.com:443"]`, `net = ["api.example.com:8443"]`, ``},
		{"host from one, port from the other", `net = ["*.example.org"]`, `net = ["*:443"]`, `net = ["*.example.org:443"]`},
		{"hosts apart", `net = ["api.example.com"]`, `net = ["api.example.org"]`, ``},
		{"suffix is not a subdomain", `net = ["badexample.org"]`, `net = ["*.example.org"]`, ``},
		{"overlapping patterns meet", `net = ["*.example.org", "*:443"]`, `net = ["*.example.org", "*:443"]`, `net = ["*.example.org", "*:443"]`},
		{"covered patterns dropped", `net = ["*.example.org", "a.example.org:443", "*.a.example.org"]`, `net = ["*"]`, `net = ["*.example.org"]`},
		{"IPv6", `net = ["[::1]:8080"]`, `net = ["[::1]", "127.0.0.1"]`, `net = ["[::1]:8080"]`},

		// MCP patterns: narrower wins.
		{"mcp granted tool", `mcp = ["github/*"]`, `mcp = ["github/create_issue"]`, `mcp = ["github/create_issue"]`},
		{"mcp declared tool", `mcp = ["github/create_issue"]`, `mcp = ["github/*"]`, `mcp = ["github/create_issue"]`},
		{"mcp covered dropped", `mcp = ["github/*", "github/list"]`, `mcp = ["github/*"]`, `mcp = ["github/*"]`},
		{"mcp same", `mcp = ["github/*"]`, `mcp = ["github/*"]`, `mcp = ["github/*"]`},
		{"mcp servers apart", `mcp = ["github/*"]`, `mcp = ["gitlab/*"]`, ``},
		{"mcp tools apart", `mcp = ["github/a"]`, `mcp = ["github/b"]`, ``},

		// Limits: the smaller, or whichever is set.
		{"limits min", `memory = "64MiB"
timeout = "10s"
output = "1MiB"`, `memory = "32MiB"
timeout = "30s"
output = "2MiB"`, `memory = "32MiB"
timeout = "10s"
output = "1MiB"`},
		{"declared limit only", `timeout = "10s"`, ``, `timeout = "10s"`},
		{"granted limit only", ``, `timeout = "5s"
memory = "16MiB"`, `timeout = "5s"
memory = "16MiB"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, g := parseSet(t, tt.declared), parseSet(t, tt.granted)
			dBefore, gBefore := parseSet(t, tt.declared), parseSet(t, tt.granted)
			got := Effective(d, g)
			assert.Equal(t, parseSet(t, tt.want), got, "Effective")
			assert.Equal(t, dBefore, d, "Effective modified declared")
			assert.Equal(t, gBefore, g, "Effective modified granted")
			assert.NoError(t, got.Validate(), "Effective(...).Validate()")
		})
	}
}

func TestEffectiveSharesNoMemory(t *testing.T) {
	d := parseSet(t, `read = ["workspace"]
env = ["LANG"]`)
	got := Effective(d, d)
	got.Read[0] = Path{Root: RootSkill}
	got.Env[0] = "X"
	assert.Equal(t, RootWorkspace, d.Read[0].Root, "modifying the result changed the argument: %+v", d)
	assert.Equal(t, "LANG", d.Env[0], "modifying the result changed the argument: %+v", d)
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name          string
		skill, script string
		want          string
	}{
		{"empty", ``, ``, ``},
		{"skill only", `read = ["workspace"]
timeout = "10s"`, ``, `read = ["workspace"]
timeout = "10s"`},
		{"script only", ``, `env = ["LANG"]`, `env = ["LANG"]`},
		{"union", `read = ["skill"]
env = ["LANG"]
net = ["api.example.com"]
mcp = ["github/*"]`, `read = ["workspace/data", "skill"]
env = ["TZ"]
net = ["*.example.org:443"]
tools = ["shell"]
skills = ["pdf-extract"]
write = ["workspace/out"]`, `read = ["skill", "workspace/data"]
write = ["workspace/out"]
env = ["LANG", "TZ"]
net = ["*.example.org:443", "api.example.com"]
tools = ["shell"]
mcp = ["github/*"]
skills = ["pdf-extract"]`},
		{"covered entries dropped", `read = ["workspace/data"]
net = ["a.example.org:443", "b.example.org"]
mcp = ["github/list"]`, `read = ["workspace"]
net = ["*.example.org"]
mcp = ["github/*"]`, `read = ["workspace"]
net = ["*.example.org"]
mcp = ["github/*"]`},
		{"script limits win", `memory = "64MiB"
timeout = "10s"
output = "1MiB"`, `memory = "128MiB"
timeout = "5s"`, `memory = "128MiB"
timeout = "5s"
output = "1MiB"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(parseSet(t, tt.skill), parseSet(t, tt.script))
			assert.Equal(t, parseSet(t, tt.want), got, "Merge")
		})
	}
}

func TestMissing(t *testing.T) {
	tests := []struct {
		name              string
		declared, granted string
		want              string
	}{
		{"nothing declared", ``, `read = ["workspace"]`, ``},
		{"nothing granted", `read = ["workspace"]`, ``, `read = ["workspace"]`},
		{"everything granted", `read = ["workspace"]
env = ["LANG"]`, `read = ["workspace"]
env = ["LANG"]`, ``},
		{"narrowed is not missing", `read = ["workspace"]`, `read = ["workspace/data"]`, ``},
		{"partly granted is not missing", `read = ["skill", "workspace"]
env = ["LANG", "TZ"]`, `read = ["skill"]
env = ["TZ"]`, ``},
		{"granted elsewhere is missing", `read = ["workspace/data"]`, `read = ["skill", "workspace/database"]`, `read = ["workspace/data"]`},
		{"per kind", `read = ["workspace"]
write = ["workspace/out"]
env = ["LANG"]
net = ["api.example.com"]
tools = ["shell"]
mcp = ["github/*"]
skills = ["pdf-extract"]`, `read = ["workspace"]
net = ["*.example.com"]
mcp = ["github/list"]`, `write = ["workspace/out"]
env = ["LANG"]
tools = ["shell"]
skills = ["pdf-extract"]`},
		{"write granted does not cover read", `read = ["workspace"]`, `write = ["workspace"]`, `read = ["workspace"]`},
		{"limits never missing", `memory = "64MiB"
timeout = "10s"
output = "1MiB"`, ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Missing(parseSet(t, tt.declared), parseSet(t, tt.granted))
			assert.Equal(t, parseSet(t, tt.want), got, "Missing")
		})
	}
}

func TestHostPatternCovers(t *testing.T) {
	tests := []struct {
		h, o string
		want bool
	}{
		{"api.example.com", "api.example.com", true},
		{"api.example.com", "api.example.com:443", true},
		{"api.example.com:443", "api.example.com", false},
		{"api.example.com:443", "api.example.com:443", true},
		{"api.example.com:443", "api.example.com:8443", false},
		{"api.example.com", "example.com", false},
		{"api.example.com", "*.example.com", false},
		{"*.example.org", "a.example.org", true},
		{"*.example.org", "a.b.example.org", true},
		{"*.example.org", "example.org", false},
		{"*.example.org", "badexample.org", false},
		{"*.example.org", "*.example.org", true},
		{"*.example.org", "*.a.example.org", true},
		{"*.a.example.org", "*.example.org", false},
		{"*.example.org", "*.badexample.org", false},
		{"*.example.org", "*", false},
		{"*.example.org:443", "a.example.org", false},
		{"*.example.org:443", "a.example.org:443", true},
		{"*", "*", true},
		{"*", "a.example.org:80", true},
		{"*", "[::1]", false}, // loopback: only a grant naming it reaches it
		{"*", "127.0.0.1:18081", false},
		{"*", "localhost", false},
		{"*:443", "10.0.0.1:443", false},
		{"*", "8.8.8.8", true}, // a public address needs no naming
		{"*", "*.localhost", true},
		{"localhost", "localhost:80", true},
		{"*:443", "*", false},
		{"*:443", "*:443", true},
		{"*:443", "a.example.org:443", true},
		{"127.0.0.1", "127.0.0.1:80", true},
		{"[::1]", "[::1]:443", true},
		{"[::1]", "127.0.0.1", false},
	}
	for _, tt := range tests {
		h, err := ParseHostPattern(tt.h)
		require.NoError(t, err)
		o, err := ParseHostPattern(tt.o)
		require.NoError(t, err)
		assert.Equal(t, tt.want, h.Covers(o), "%q.Covers(%q)", tt.h, tt.o)
	}
}

// Universes for random sets: small, so that random sets overlap often,
// and full of the near misses the rules are about (data vs database,
// example.org vs *.example.org, ports).
var (
	genSubs   = []string{"", "a", "a/b", "a/b/c", "ab", "b", "b/a"}
	genHosts  = []string{"example.org", "a.example.org", "b.a.example.org", "example.com", "a.example.com", "1.2.3.4", "::1"}
	genPorts  = []int{0, 0, 443, 8080}
	genNames  = []string{"A", "B", "C", "D"}
	genMCP    = []string{"gh/a", "gh/b", "gh/*", "gl/a", "gl/*"}
	probeSubs = append(slices.Clone(genSubs), "a/b/c/d", "ab/c", "c")
	probeHost = []string{"example.org", "a.example.org", "b.a.example.org", "c.b.a.example.org", "x.example.org",
		"example.com", "a.example.com", "z.a.example.com", "1.2.3.4", "::1", "other.net"}
	probePorts = []int{22, 443, 8080}
	probeMCP   = []string{"gh/a", "gh/b", "gh/c", "gl/a", "gl/z", "xx/a"}
)

// randomSet returns a valid Set drawn from the universes above.
func randomSet(r *rand.Rand) Set {
	var s Set
	pick := func(n int) int { return r.IntN(n) }
	for range pick(4) {
		s.Read = append(s.Read, Path{Root: Root(1 + pick(2)), Sub: genSubs[pick(len(genSubs))]})
	}
	for range pick(3) {
		s.Write = append(s.Write, Path{Root: Root(1 + pick(2)), Sub: genSubs[pick(len(genSubs))]})
	}
	for range pick(4) {
		var h HostPattern
		switch i := pick(len(genHosts) + 1); {
		case i == len(genHosts):
			h.Wildcard = true
		default:
			h.Host = genHosts[i]
			// No wildcard before an IP address, as the parser insists.
			h.Wildcard = i < 5 && pick(2) == 0
		}
		h.Port = genPorts[pick(len(genPorts))]
		s.Net = append(s.Net, h)
	}
	for range pick(3) {
		s.Env = append(s.Env, genNames[pick(len(genNames))])
	}
	for range pick(3) {
		s.Tools = append(s.Tools, genNames[pick(len(genNames))])
	}
	for range pick(3) {
		s.Skills = append(s.Skills, genNames[pick(len(genNames))])
	}
	for range pick(3) {
		s.MCP = append(s.MCP, genMCP[pick(len(genMCP))])
	}
	if pick(2) == 0 {
		s.Memory = Size(1+pick(4)) * MiB
	}
	if pick(2) == 0 {
		s.Timeout = Duration(time.Duration(1+pick(4)) * time.Second)
	}
	if pick(2) == 0 {
		s.Output = Size(1+pick(4)) * KiB
	}
	// A declaration names nothing twice (Validate says so).
	return Merge(s, Set{})
}

func containsPath(list []Path, p Path) bool {
	return slices.ContainsFunc(list, func(q Path) bool { return q.Contains(p) })
}

func matchesHost(list []HostPattern, host string, port int) bool {
	return slices.ContainsFunc(list, func(q HostPattern) bool { return q.Match(host, port) })
}

// reachesHost reports whether list lets a fetch reach host:port: a host
// name through any pattern matching it, a special-purpose address only
// through a pattern naming it, as host's Fetcher checks when it connects.
func reachesHost(list []HostPattern, host string, port int) bool {
	if a, err := netip.ParseAddr(host); err == nil && AddrClass(a) != "" {
		return slices.ContainsFunc(list, func(q HostPattern) bool { return !q.Wildcard && q.Match(host, port) })
	}
	return matchesHost(list, host, port)
}

func coversHost(list []HostPattern, p HostPattern) bool {
	return slices.ContainsFunc(list, func(q HostPattern) bool { return q.Covers(p) })
}

func matchesMCP(list []string, call string) bool {
	server, tool, _ := strings.Cut(call, "/")
	return Set{MCP: list}.CheckMCP(server, tool) == nil
}

func limitWithin[T Size | Duration](eff, bound T) bool { return bound == 0 || eff != 0 && eff <= bound }

// TestEffectiveProperties checks, on random sets from a seeded generator,
// that Effective is an intersection: every part of the result lies within
// what was declared and within what was granted, and every use allowed by
// both is allowed by the result (nothing is lost either).
func TestEffectiveProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		d, g := randomSet(r), randomSet(r)
		require.NoError(t, d.Validate(), "generator made an invalid set")
		eff := Effective(d, g)
		// Every failure names the case.
		where := fmt.Sprintf("case %d: declared %s; granted %s; effective %s", i, Describe(d), Describe(g), Describe(eff))
		assert.NoError(t, eff.Validate(), "%s: invalid", where)
		for i, p := range eff.Read {
			for j, q := range eff.Read {
				if i != j {
					assert.False(t, p.Contains(q), "%s: read %s is covered by %s", where, q, p)
				}
			}
		}
		for i, p := range eff.Net {
			for j, q := range eff.Net {
				if i != j {
					assert.False(t, p.Covers(q), "%s: net %s is covered by %s", where, q, p)
				}
			}
		}
		assert.True(t, slices.IsSortedFunc(eff.Net, func(a, b HostPattern) int { return strings.Compare(a.String(), b.String()) }), "%s: net is not sorted", where)
		assert.Equal(t, eff, Effective(g, d), "%s: not symmetric (Effective(d, g), Effective(g, d))", where)

		// Within declared and within granted.
		for _, l := range []struct {
			key       string
			eff, d, g []Path
		}{{"read", eff.Read, d.Read, g.Read}, {"write", eff.Write, d.Write, g.Write}} {
			for _, p := range l.eff {
				assert.True(t, containsPath(l.d, p) && containsPath(l.g, p), "%s: %s %s is not within both", where, l.key, p)
			}
		}
		for _, p := range eff.Net {
			assert.True(t, coversHost(d.Net, p) && coversHost(g.Net, p), "%s: net %s is not within both", where, p)
		}
		for _, l := range []struct {
			key       string
			eff, d, g []string
		}{{"env", eff.Env, d.Env, g.Env}, {"tools", eff.Tools, d.Tools, g.Tools}, {"skills", eff.Skills, d.Skills, g.Skills}} {
			for _, n := range l.eff {
				assert.True(t, slices.Contains(l.d, n) && slices.Contains(l.g, n), "%s: %s %s is not within both", where, l.key, n)
			}
		}
		for _, m := range eff.MCP {
			dOK := slices.ContainsFunc(d.MCP, func(q string) bool { x, ok := meetMCP(q, m); return ok && x == m })
			gOK := slices.ContainsFunc(g.MCP, func(q string) bool { x, ok := meetMCP(q, m); return ok && x == m })
			assert.True(t, dOK && gOK, "%s: mcp %s is not within both", where, m)
		}
		assert.True(t, limitWithin(eff.Memory, d.Memory) && limitWithin(eff.Memory, g.Memory), "%s: memory is wider than declared or granted", where)
		assert.True(t, limitWithin(eff.Timeout, d.Timeout) && limitWithin(eff.Timeout, g.Timeout), "%s: timeout is wider than declared or granted", where)
		assert.True(t, limitWithin(eff.Output, d.Output) && limitWithin(eff.Output, g.Output), "%s: output is wider than declared or granted", where)

		// Exactly the intersection, probed use by use.
		for _, root := range []Root{RootSkill, RootWorkspace} {
			for _, sub := range probeSubs {
				p := Path{Root: root, Sub: sub}
				assert.Equal(t, containsPath(d.Read, p) && containsPath(g.Read, p), containsPath(eff.Read, p), "%s: read %s allowed", where, p)
				assert.Equal(t, containsPath(d.Write, p) && containsPath(g.Write, p), containsPath(eff.Write, p), "%s: write %s allowed", where, p)
			}
		}
		for _, host := range probeHost {
			for _, port := range probePorts {
				assert.Equal(t, reachesHost(d.Net, host, port) && reachesHost(g.Net, host, port), reachesHost(eff.Net, host, port), "%s: net %s:%d allowed", where, host, port)
			}
		}
		for _, call := range probeMCP {
			assert.Equal(t, matchesMCP(d.MCP, call) && matchesMCP(g.MCP, call), matchesMCP(eff.MCP, call), "%s: mcp %s allowed", where, call)
		}
		for _, n := range genNames {
			assert.Equal(t, slices.Contains(d.Env, n) && slices.Contains(g.Env, n), slices.Contains(eff.Env, n), "%s: env %s allowed", where, n)
		}

		// Missing names a kind exactly when it is declared and nothing of
		// it survives.
		m := Missing(d, g)
		assert.Equal(t, len(d.Read) > 0 && len(eff.Read) == 0, len(m.Read) > 0, "%s: Missing = %s names read", where, Describe(m))
		assert.Equal(t, len(d.Net) > 0 && len(eff.Net) == 0, len(m.Net) > 0, "%s: Missing = %s names net", where, Describe(m))
		assert.Equal(t, len(d.MCP) > 0 && len(eff.MCP) == 0, len(m.MCP) > 0, "%s: Missing = %s names mcp", where, Describe(m))

		// -A grants exactly the declaration.
		all, err := GrantFromFlags(d, true, nil)
		assert.NoError(t, err, "%s: GrantFromFlags(-A)", where)
		assert.Equal(t, d, Effective(d, all), "%s: -A effective is not the declaration", where)
		if t.Failed() {
			return
		}
	}
}
