package capabilities

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseHostPattern(t *testing.T) {
	const forms = `write host[:port], such as "api.example.com", "*.example.org:443" or "[::1]:8080"`
	tests := []struct {
		in      string
		want    HostPattern
		text    string // String() of the result; "" means in
		wantErr string // exact error text; "" means success
	}{
		{in: "api.example.com", want: HostPattern{Host: "api.example.com"}},
		{in: "api.example.com:8443", want: HostPattern{Host: "api.example.com", Port: 8443}},
		{in: "*.example.org", want: HostPattern{Host: "example.org", Wildcard: true}},
		{in: "*.example.org:443", want: HostPattern{Host: "example.org", Port: 443, Wildcard: true}},
		{in: "127.0.0.1:8080", want: HostPattern{Host: "127.0.0.1", Port: 8080}},
		{in: "127.0.0.1", want: HostPattern{Host: "127.0.0.1"}},
		{in: "[::1]:443", want: HostPattern{Host: "::1", Port: 443}},
		{in: "[::1]", want: HostPattern{Host: "::1"}},
		{in: "[0:0:0:0:0:0:0:1]", want: HostPattern{Host: "::1"}, text: "[::1]"},
		{in: "[::ffff:10.0.0.1]:80", want: HostPattern{Host: "10.0.0.1", Port: 80}, text: "10.0.0.1:80"},
		{in: "*", want: HostPattern{Wildcard: true}},
		{in: "*:443", want: HostPattern{Port: 443, Wildcard: true}},
		{in: "API.Example.COM", want: HostPattern{Host: "api.example.com"}, text: "api.example.com"},
		{in: "localhost:65535", want: HostPattern{Host: "localhost", Port: 65535}},
		{in: "my_host.internal:1", want: HostPattern{Host: "my_host.internal", Port: 1}},
		{in: "xn--bcher-kva.example", want: HostPattern{Host: "xn--bcher-kva.example"}},

		{in: "", wantErr: `invalid host pattern "": empty; ` + forms},
		{in: "https://api.example.com", wantErr: `invalid host pattern "https://api.example.com": a URL is not a host pattern; drop the scheme and any path, ` + forms},
		{in: "api.example.com/v1", wantErr: `invalid host pattern "api.example.com/v1": a path is not part of a host pattern; ` + forms},
		{in: "api.example.com?q", wantErr: `invalid host pattern "api.example.com?q": a path is not part of a host pattern; ` + forms},
		{in: "user@api.example.com", wantErr: `invalid host pattern "user@api.example.com": user info is not part of a host pattern; ` + forms},
		{in: "api example.com", wantErr: `invalid host pattern "api example.com": contains a space or control character`},
		{in: " api.example.com", wantErr: `invalid host pattern " api.example.com": contains a space or control character`},
		{in: "api.example.com\t", wantErr: `invalid host pattern "api.example.com\t": contains a space or control character`},
		{in: "a..example.com", wantErr: `invalid host pattern "a..example.com": empty label in host name "a..example.com"`},
		{in: ".example.com", wantErr: `invalid host pattern ".example.com": empty label in host name ".example.com"`},
		{in: "example.com.", wantErr: `invalid host pattern "example.com.": empty label in host name "example.com."`},
		{in: ":443", wantErr: `invalid host pattern ":443": empty label in host name ""`},
		{in: "a.*.com", wantErr: `invalid host pattern "a.*.com": a wildcard may only be the whole first label, as in "*.example.org"`},
		{in: "*example.com", wantErr: `invalid host pattern "*example.com": a wildcard may only be the whole first label, as in "*.example.org"`},
		{in: "*.*.example.com", wantErr: `invalid host pattern "*.*.example.com": a wildcard may only be the whole first label, as in "*.example.org"`},
		{in: "**", wantErr: `invalid host pattern "**": a wildcard may only be the whole first label, as in "*.example.org"`},
		{in: "*.", wantErr: `invalid host pattern "*.": empty label in host name ""`},
		{in: "*.10.0.0.1", wantErr: `invalid host pattern "*.10.0.0.1": a wildcard cannot precede an IP address`},
		{in: "example.com:0", wantErr: `invalid host pattern "example.com:0": port 0 is outside 1..65535`},
		{in: "example.com:65536", wantErr: `invalid host pattern "example.com:65536": port 65536 is outside 1..65535`},
		{in: "example.com:99999999999999999999", wantErr: `invalid host pattern "example.com:99999999999999999999": port 99999999999999999999 is outside 1..65535`},
		{in: "example.com:-1", wantErr: `invalid host pattern "example.com:-1": port "-1" is not a number`},
		{in: "example.com:https", wantErr: `invalid host pattern "example.com:https": port "https" is not a number`},
		{in: "example.com:", wantErr: `invalid host pattern "example.com:": missing port after ":"`},
		{in: "::1", wantErr: `invalid host pattern "::1": write IPv6 addresses in brackets, such as "[::1]" or "[::1]:443"`},
		{in: "[::1", wantErr: `invalid host pattern "[::1": missing "]" after the IPv6 address`},
		{in: "[::1]443", wantErr: `invalid host pattern "[::1]443": only ":port" may follow "]"`},
		{in: "[example.com]", wantErr: `invalid host pattern "[example.com]": "example.com" in brackets is not an IPv6 address (without a zone)`},
		{in: "[10.0.0.1]", wantErr: `invalid host pattern "[10.0.0.1]": "10.0.0.1" in brackets is not an IPv6 address (without a zone)`},
		{in: "[fe80::1%eth0]", wantErr: `invalid host pattern "[fe80::1%eth0]": "fe80::1%eth0" in brackets is not an IPv6 address (without a zone)`},
		{in: "-bad.example.com", wantErr: `invalid host pattern "-bad.example.com": label "-bad" starts or ends with a hyphen`},
		{in: "bücher.example", wantErr: `invalid host pattern "bücher.example": host name "bücher.example" is not ASCII; use its punycode (xn--) form`},
		{in: "a!b.example", wantErr: `invalid host pattern "a!b.example": host name "a!b.example" contains '!'`},
		{in: strings.Repeat("a", 64) + ".com", wantErr: `invalid host pattern "` + strings.Repeat("a", 64) + `.com": label "` + strings.Repeat("a", 64) + `" is longer than 63 bytes`},
		{in: strings.Repeat("a.", 150) + "com", wantErr: `invalid host pattern "` + strings.Repeat("a.", 150) + `com": too long`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := unmarshalCase(t, tt.in, tt.want, tt.wantErr)
			if !ok {
				return
			}
			wantText := tt.text
			if wantText == "" {
				wantText = tt.in
			}
			text, err := got.MarshalText()
			if assert.NoError(t, err, "MarshalText()") {
				assert.Equal(t, wantText, string(text), "MarshalText()")
			}
			assert.NoError(t, got.validate(), "parsed pattern %#v does not validate", got)
		})
	}
}

func TestHostPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		host    string
		port    int
		want    bool
	}{
		{"api.example.com", "api.example.com", 443, true},
		{"api.example.com", "api.example.com", 80, true},
		{"api.example.com", "API.Example.com", 443, true},
		{"api.example.com", "api.example.com.", 443, true},
		{"api.example.com", "example.com", 443, false},
		{"api.example.com", "evil-api.example.com", 443, false},
		{"api.example.com", "api.example.com.evil.org", 443, false},
		{"api.example.com", "", 443, false},
		{"api.example.com:8443", "api.example.com", 8443, true},
		{"api.example.com:8443", "api.example.com", 443, false},
		{"*.example.org", "a.example.org", 443, true},
		{"*.example.org", "a.b.example.org", 80, true},
		{"*.example.org", "example.org", 443, false},
		{"*.example.org", "badexample.org", 443, false},
		{"*.example.org", ".example.org", 443, false},
		{"*.example.org:443", "a.example.org", 443, true},
		{"*.example.org:443", "a.example.org", 80, false},
		{"*", "anything.at.all", 1234, true},
		{"*", "10.0.0.1", 22, true},
		{"*", "", 22, false},
		{"*:443", "example.com", 443, true},
		{"*:443", "example.com", 80, false},
		{"127.0.0.1:8080", "127.0.0.1", 8080, true},
		{"127.0.0.1:8080", "127.0.0.2", 8080, false},
		{"127.0.0.1", "::ffff:127.0.0.1", 80, true},
		{"[::1]:443", "::1", 443, true},
		{"[::1]:443", "0:0:0:0:0:0:0:1", 443, true},
		{"[::1]:443", "[::1]", 443, true},
		{"[::1]:443", "::1", 80, false},
		{"[fe80::1]", "fe80::1%eth0", 80, false},
	}
	for _, tt := range tests {
		p, err := ParseHostPattern(tt.pattern)
		require.NoError(t, err)
		assert.Equal(t, tt.want, p.Match(tt.host, tt.port), "%q.Match(%q, %d)", tt.pattern, tt.host, tt.port)
	}
}

func TestHostPatternValidate(t *testing.T) {
	tests := []struct {
		p       HostPattern
		wantErr string
	}{
		{HostPattern{Host: "example.com"}, ""},
		{HostPattern{}, "invalid host pattern: empty host without wildcard"},
		{HostPattern{Host: "Example.com"}, `invalid host pattern "Example.com": not in canonical form (lowercase host, IPv6 without brackets)`},
		{HostPattern{Host: "example.com", Port: 70000}, `invalid host pattern "example.com:70000": port 70000 is outside 1..65535`},
	}
	for _, tt := range tests {
		err := tt.p.validate()
		if tt.wantErr == "" {
			assert.NoError(t, err, "%#v.validate()", tt.p)
		} else {
			assert.EqualError(t, err, tt.wantErr, "%#v.validate()", tt.p)
		}
	}
}

// FuzzParseHostPattern checks that a pattern that parses prints back to
// text that parses to the same pattern, and that it matches its own host.
func FuzzParseHostPattern(f *testing.F) {
	for _, s := range []string{
		"api.example.com", "api.example.com:8443", "*.example.org:443",
		"127.0.0.1:8080", "[::1]:443", "*", "*:443", "a.*.com",
		"https://x", "[::ffff:1.2.3.4]", "EXAMPLE.com", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseHostPattern(s)
		if err != nil {
			return
		}
		text := p.String()
		q, err := ParseHostPattern(text)
		require.NoError(t, err, "ParseHostPattern(%q) = %#v, but its String %q does not parse", s, p, text)
		if q != p {
			t.Fatalf("ParseHostPattern(%q) = %#v, but ParseHostPattern(%q) = %#v", s, p, text, q)
		}
		if !p.Wildcard && !p.Match(p.Host, 443) && p.Port == 0 {
			t.Fatalf("%#v does not match its own host", p)
		}
	})
}
