package capabilities

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// A HostPattern names the hosts a script may reach over the network, as
// written in the net key of skill.toml.
//
// Text forms:
//
//	api.example.com         that host, any port
//	api.example.com:8443    that host, port 8443 only
//	*.example.org           any host below example.org (not example.org itself)
//	*.example.org:443       the same, port 443 only
//	127.0.0.1:8080          an IPv4 address
//	[::1]:443               an IPv6 address, always in brackets
//	*                       any host, any port
//	*:443                   any host, port 443 only
//
// A pattern naming a special-purpose address ([AddrClass]: loopback,
// private, link-local, ...) or "localhost" is the only grant that reaches
// that address: a wildcard matches its name but never its address, since
// whoever controls a name's DNS can point it anywhere. So no wildcard
// covers such a pattern ([HostPattern.Covers]): canonical lists keep
// "127.0.0.1:8080" beside "*", and "*" meets it in nothing.
//
// Host names are lowercased; IP addresses are stored in their canonical form.
// Schemes, paths, user info, spaces, empty labels, a wildcard anywhere but a
// whole leading label, and ports outside 1..65535 are rejected, each with a
// message that says which form to use instead.
type HostPattern struct {
	// Host is the lowercase host name or canonical IP address (IPv6 without
	// brackets). With Wildcard set it is the suffix below which any host
	// matches, or "" to match any host at all.
	Host string
	// Port is the only port allowed, or 0 for any port.
	Port int
	// Wildcard means the pattern was "*.Host" (or "*" when Host is "").
	Wildcard bool
}

// maxHostLen is the longest DNS name, in its dotted text form.
const maxHostLen = 253

// ParseHostPattern parses the text form of a [HostPattern].
func ParseHostPattern(s string) (HostPattern, error) {
	bad := func(why string) (HostPattern, error) {
		return HostPattern{}, fmt.Errorf("invalid host pattern %q: %s", s, why)
	}
	const forms = `write host[:port], such as "api.example.com", "*.example.org:443" or "[::1]:8080"`
	switch {
	case s == "":
		return bad("empty; " + forms)
	case len(s) > maxHostLen+len("[]:65535"):
		return bad("too long")
	case strings.Contains(s, "://"):
		return bad("a URL is not a host pattern; drop the scheme and any path, " + forms)
	case strings.ContainsAny(s, "/?#"):
		return bad("a path is not part of a host pattern; " + forms)
	case strings.Contains(s, "@"):
		return bad("user info is not part of a host pattern; " + forms)
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return bad("contains a space or control character")
		}
	}

	var p HostPattern
	host := s
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return bad(`missing "]" after the IPv6 address`)
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return bad(`only ":port" may follow "]"`)
			}
			port, err := parsePort(rest[1:])
			if err != nil {
				return bad(err.Error())
			}
			p.Port = port
		}
		addr, err := netip.ParseAddr(host)
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return bad(fmt.Sprintf("%q in brackets is not an IPv6 address (without a zone)", host))
		}
		p.Host = addr.Unmap().String()
		return p, nil
	}

	switch strings.Count(s, ":") {
	case 0:
	case 1:
		var portText string
		host, portText, _ = strings.Cut(s, ":")
		port, err := parsePort(portText)
		if err != nil {
			return bad(err.Error())
		}
		p.Port = port
	default:
		return bad(`write IPv6 addresses in brackets, such as "[::1]" or "[::1]:443"`)
	}

	if host == "*" {
		p.Wildcard = true
		return p, nil
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		p.Wildcard = true
		host = rest
	}
	if strings.Contains(host, "*") {
		return bad(`a wildcard may only be the whole first label, as in "*.example.org"`)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if p.Wildcard {
			return bad("a wildcard cannot precede an IP address")
		}
		p.Host = addr.String()
		return p, nil
	}
	host = strings.ToLower(host)
	if err := checkHostName(host); err != nil {
		return bad(err.Error())
	}
	p.Host = host
	return p, nil
}

func parsePort(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf(`missing port after ":"`)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("port %q is not a number", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %s is outside 1..65535", s)
	}
	return n, nil
}

// checkHostName checks a lowercase DNS name: dot-separated labels of 1..63
// letters, digits, hyphens or underscores, not starting or ending with a
// hyphen.
func checkHostName(host string) error {
	if len(host) > maxHostLen {
		return fmt.Errorf("host name longer than %d bytes", maxHostLen)
	}
	for label := range strings.SplitSeq(host, ".") {
		if label == "" {
			return fmt.Errorf("empty label in host name %q", host)
		}
		if len(label) > 63 {
			return fmt.Errorf("label %q is longer than 63 bytes", label)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("label %q starts or ends with a hyphen", label)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				if c >= 0x80 {
					return fmt.Errorf("host name %q is not ASCII; use its punycode (xn--) form", host)
				}
				return fmt.Errorf("host name %q contains %q", host, c)
			}
		}
	}
	return nil
}

// Match reports whether the pattern allows a connection to host:port. host
// is a host name or IP address, as [net/url.URL.Hostname] returns it; it is
// compared case-insensitively, ignoring one trailing dot.
// "*.example.org" matches "a.example.org" and "a.b.example.org" but not
// "example.org"; a pattern without a port matches every port.
func (p HostPattern) Match(host string, port int) bool {
	if p.Port != 0 && port != p.Port {
		return false
	}
	if len(host) > 2 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	if host == "" {
		return false
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return false
		}
		host = addr.Unmap().String()
	} else {
		host = strings.ToLower(strings.TrimSuffix(host, "."))
	}
	if !p.Wildcard {
		return host == p.Host
	}
	if p.Host == "" {
		return true
	}
	prefix, ok := strings.CutSuffix(host, "."+p.Host)
	return ok && prefix != ""
}

// String returns the skill.toml text of the pattern, which
// [ParseHostPattern] reads back to the same HostPattern.
func (p HostPattern) String() string {
	var b strings.Builder
	switch {
	case p.Wildcard && p.Host == "":
		b.WriteString("*")
	case p.Wildcard:
		b.WriteString("*.")
		b.WriteString(p.Host)
	case strings.Contains(p.Host, ":"):
		b.WriteString("[" + p.Host + "]")
	default:
		b.WriteString(p.Host)
	}
	if p.Port != 0 {
		b.WriteString(":" + strconv.Itoa(p.Port))
	}
	return b.String()
}

// UnmarshalText implements [encoding.TextUnmarshaler] with
// [ParseHostPattern].
func (p *HostPattern) UnmarshalText(text []byte) error {
	v, err := ParseHostPattern(string(text))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// MarshalText implements [encoding.TextMarshaler]; the text is
// [HostPattern.String].
func (p HostPattern) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// namesAddr reports whether p names a special-purpose address (or
// localhost) that only a pattern naming it reaches.
func (p HostPattern) namesAddr() bool {
	if p.Wildcard {
		return false
	}
	if p.Host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(p.Host)
	return err == nil && AddrClass(a) != ""
}

// validate checks a HostPattern built in Go code rather than parsed: it must
// be what [ParseHostPattern] would have produced from its own text.
func (p HostPattern) validate() error {
	if !p.Wildcard && p.Host == "" {
		return fmt.Errorf("invalid host pattern: empty host without wildcard")
	}
	q, err := ParseHostPattern(p.String())
	if err != nil {
		return err
	}
	if q != p {
		return fmt.Errorf("invalid host pattern %q: not in canonical form (lowercase host, IPv6 without brackets)", p.String())
	}
	return nil
}

// specialAddrPrefixes are special-purpose ranges that netip.Addr's methods do
// not name.
var specialAddrPrefixes = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // and 255.255.255.255, broadcast
	{netip.MustParsePrefix("::/96"), "reserved"},       // IPv4-compatible, deprecated
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// nat64Prefix is the well-known NAT64 prefix, which embeds an IPv4 address.
var nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")

// AddrClass names the kind of special-purpose address a is ("loopback",
// "private", "link-local", "unspecified", "multicast", "shared (CGNAT)",
// "reserved", "site-local", "invalid"), or returns "" for a public unicast
// address. A connection to a special-purpose address needs a grant that
// names it: a pattern without a wildcard whose host is that address, or
// "localhost" for loopback under the name localhost (see [HostPattern]);
// host's Fetcher checks this when it connects.
func AddrClass(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	}
	for _, s := range specialAddrPrefixes {
		if s.prefix.Contains(a.WithZone("")) {
			return s.class
		}
	}
	if nat64Prefix.Contains(a) {
		b := a.As16()
		return AddrClass(netip.AddrFrom4([4]byte(b[12:])))
	}
	return ""
}
