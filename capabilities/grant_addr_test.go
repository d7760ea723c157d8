package capabilities

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNetCanonicalKeepsNamedAddresses checks that putting a net list in
// canonical form never drops a pattern naming a special-purpose address
// or localhost beside a wildcard: "*" does not reach such an address (the
// fetcher refuses it unless a grant names it), so dropping the explicit
// entry took away what the operator granted (issue 11, "also noticed").
// And the other way round: a wildcard on one side never turns into a
// named address on the other, which would grant loopback to a skill the
// operator gave only "*".
func TestNetCanonicalKeepsNamedAddresses(t *testing.T) {
	net := func(list ...string) Set {
		t.Helper()
		var s Set
		for _, p := range list {
			hp, err := ParseHostPattern(p)
			require.NoError(t, err)
			s.Net = append(s.Net, hp)
		}
		return s
	}
	str := func(s Set) []string {
		var out []string
		for _, p := range s.Net {
			out = append(out, p.String())
		}
		return out
	}
	tests := []struct {
		name              string
		declared, granted []string
		want              []string
	}{
		{"both name loopback beside *", []string{"*", "127.0.0.1:18081"}, []string{"*", "127.0.0.1:18081"}, []string{"*", "127.0.0.1:18081"}},
		{"IPv6 loopback and localhost", []string{"*", "[::1]", "localhost:8080"}, []string{"*", "[::1]:443", "localhost"}, []string{"*", "[::1]:443", "localhost:8080"}},
		{"private address beside *:443", []string{"*:443", "10.0.0.5:443"}, []string{"*:443", "10.0.0.5:443"}, []string{"*:443", "10.0.0.5:443"}},
		{"metadata address", []string{"*", "169.254.169.254:80"}, []string{"*", "169.254.169.254"}, []string{"*", "169.254.169.254:80"}},
		{"public address is covered", []string{"*", "8.8.8.8"}, []string{"*"}, []string{"*"}},
		{"granted * does not give declared loopback", []string{"127.0.0.1:18081"}, []string{"*"}, nil},
		{"declared * does not take granted loopback", []string{"*"}, []string{"127.0.0.1:18081"}, nil},
		{"named on both sides meets", []string{"127.0.0.1"}, []string{"127.0.0.1:18081", "*"}, []string{"127.0.0.1:18081"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, g := net(tt.declared...), net(tt.granted...)
			assert.Equal(t, tt.want, str(Effective(d, g)), "Effective")
			assert.Equal(t, tt.want, str(Effective(g, d)), "Effective (swapped)")
		})
	}

	// Merge (and so the canonical form of one declaration) keeps them too.
	got := str(Merge(net("*", "127.0.0.1:18081"), net("localhost", "*.example.org", "api.example.org")))
	assert.Equal(t, []string{"*", "127.0.0.1:18081", "localhost"}, got, "Merge")
	// What a denial offers to add for a declared loopback the operator
	// meant to cover with "*": the named address itself.
	assert.Equal(t, []string{"--allow-net=127.0.0.1:18081"}, Flags(Missing(net("127.0.0.1:18081"), net("*"))), "Missing flags")
}
