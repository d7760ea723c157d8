package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
)

// Fetch limits and defaults.
const (
	// maxFetchRequestBody bounds the body a guest may send with one
	// [FetchRequest].
	maxFetchRequestBody = 1 << 20
	// defaultFetchMaxResponse is the response body bound when
	// [FetchOptions.MaxResponse] is zero.
	defaultFetchMaxResponse = 4 << 20
	// defaultFetchTimeout is the time bound when [FetchOptions.Timeout] is
	// zero.
	defaultFetchTimeout = 30 * time.Second
	// defaultFetchMaxRedirects is the redirect bound when
	// [FetchOptions.MaxRedirects] is zero.
	defaultFetchMaxRedirects = 5

	maxFetchHeaders      = 100
	maxFetchHeaderBytes  = 64 << 10
	maxFetchURLLen       = 8 << 10
	maxFetchResponseHead = 256 << 10
)

var (
	// ErrInvalidFetch matches a [FetchRequest] refused before any check of
	// the grant: a method that is not allowed, a URL that is not http or
	// https, a body over 1 MiB, a bad header.
	ErrInvalidFetch = errors.New("invalid fetch request")
	// errTooManyRedirects matches a fetch that met more redirects than
	// [FetchOptions.MaxRedirects] allows.
	errTooManyRedirects = errors.New("too many redirects")
)

// A FetchRequest is one HTTP request a guest asks the host to make. It is
// the JSON payload of the fetch host function.
type FetchRequest struct {
	// Method is GET (the default when empty), HEAD, POST, PUT, PATCH or
	// DELETE, in any case.
	Method string `json:"method"`
	// URL is an absolute http or https URL without user info.
	URL string `json:"url"`
	// Headers are sent as given, except that Host is refused (the host is
	// the URL's) and hop-by-hop and framing headers (Connection,
	// Keep-Alive, Proxy-*, TE, Trailer, Transfer-Encoding, Upgrade,
	// Content-Length) are dropped: the host frames the request itself.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is at most 1 MiB.
	Body []byte `json:"body,omitempty"`
}

// A FetchResponse is the answer to a [FetchRequest].
type FetchResponse struct {
	// Status is the HTTP status code of the final response.
	Status int `json:"status"`
	// Headers holds the final response's headers, canonically named, with
	// repeated values joined by ", "; hop-by-hop headers are left out.
	Headers map[string]string `json:"headers"`
	// Body is the response body, cut at [FetchOptions.MaxResponse] bytes.
	Body []byte `json:"body"`
	// Truncated reports that Body was cut.
	Truncated bool `json:"truncated,omitempty"`
	// URL is the final URL, after redirects, without user info.
	URL string `json:"url"`
}

// FetchOptions configures a [Fetcher]. The zero value, like a nil
// *FetchOptions, means every default.
type FetchOptions struct {
	// MaxResponse bounds the response body kept; the rest is dropped and
	// [FetchResponse.Truncated] set. Zero means 4 MiB.
	MaxResponse int64
	// Timeout bounds a whole fetch: connections, redirects and reading the
	// body. Zero means 30 seconds.
	Timeout time.Duration
	// MaxRedirects bounds the redirects followed; more is an error
	// matching [errTooManyRedirects]. Zero means 5; a negative value
	// follows none and returns the redirect response itself, so the guest
	// can follow it with a new, newly checked, fetch.
	MaxRedirects int
	// Auditor records one event per check. Nil means the auditor the
	// fetch's ctx carries ([audit.AuditorFrom]), which by default
	// records nothing.
	Auditor audit.Auditor
	// Skill and Script name the script for audit events and denials.
	Skill, Script string
	// Transport makes the requests. Nil means a hardened default: no
	// proxy, HTTP/1.1, and a dialer that checks every address it connects
	// to. An *http.Transport is cloned and given the same proxy setting
	// and dialer, so only its TLS and tuning settings count. Any other
	// RoundTripper is used as it is and must do the address check itself:
	// the Fetcher still checks every URL and redirect hop.
	Transport http.RoundTripper
}

// A Fetcher makes the HTTP requests of the fetch host function for one
// script, allowing only what the script's effective grant names in its
// net list. It is safe for concurrent use.
//
// # Checks
//
// Before any connection, and again for every redirect hop, the URL's host
// and port (80 or 443 by default) must match a granted
// [capabilities.HostPattern] ([capabilities.Set.CheckNet]). Then, when
// connecting, the address the name resolved to is checked too: a
// loopback, private (RFC 1918, fc00::/7), link-local (169.254.0.0/16,
// which holds the cloud metadata address 169.254.169.254, and
// fe80::/10), unspecified, multicast, shared (CGNAT, 100.64.0.0/10) or
// otherwise reserved address is refused, unless the grant names it
// explicitly:
//
//   - a pattern without a wildcard whose host is that very address, such as
//     "127.0.0.1:8080" or "[::1]", allows it (under any host name that
//     passed the first check);
//   - the pattern "localhost" (or "localhost:PORT") allows loopback
//     addresses when the URL's host is localhost;
//   - a wildcard ("*", "*:443", "*.example.org") never does, and neither
//     does a grant of any other host name, since whoever controls a name's
//     DNS can point it anywhere (DNS rebinding).
//
// Checking the address at connect time, not at lookup, means the address
// checked is the one used.
//
// Every check records an event of kind "net" whose value is the URL's
// host:port: allow or deny for the URL and for each redirect hop, and a
// deny when an address is refused. A denial is returned as a
// [*capabilities.DeniedError] (matching [capabilities.ErrDenied]) that
// names the host and the flag that would allow it.
//
// # Other rules
//
// Only http and https URLs are fetched. No cookies are kept between
// requests and no proxy is used, whatever the environment says.
// Credentials (Authorization, Cookie and the like) are not forwarded on a
// redirect to another scheme, host or port, nor after one; no Referer is
// added on a redirect.
type Fetcher struct {
	net          []capabilities.HostPattern
	maxResponse  int64
	timeout      time.Duration
	maxRedirects int
	auditor      audit.Auditor
	skill        string
	script       string
	client       *http.Client
	// resolver looks up host names when dialing; nil means the default.
	// Tests set one to play a DNS server whose answers change.
	resolver *net.Resolver
}

// NewFetcher returns a Fetcher allowing what granted's net list names.
// It panics if o holds a negative MaxResponse or Timeout.
func NewFetcher(granted capabilities.Set, o *FetchOptions) *Fetcher {
	var opts FetchOptions
	if o != nil {
		opts = *o
	}
	if opts.MaxResponse < 0 {
		panic(fmt.Sprintf("host.NewFetcher: negative MaxResponse %d", opts.MaxResponse))
	}
	if opts.Timeout < 0 {
		panic(fmt.Sprintf("host.NewFetcher: negative Timeout %v", opts.Timeout))
	}
	if opts.MaxResponse == 0 {
		opts.MaxResponse = defaultFetchMaxResponse
	}
	if opts.Timeout == 0 {
		opts.Timeout = defaultFetchTimeout
	}
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = defaultFetchMaxRedirects
	}
	f := &Fetcher{
		net:          slices.Clone(granted.Net),
		maxResponse:  opts.MaxResponse,
		timeout:      opts.Timeout,
		maxRedirects: opts.MaxRedirects,
		auditor:      opts.Auditor,
		skill:        opts.Skill,
		script:       opts.Script,
	}
	f.client = &http.Client{
		Transport:     f.transport(opts.Transport),
		CheckRedirect: f.checkRedirect,
	}
	return f
}

// transport returns the RoundTripper for rt, as [FetchOptions.Transport]
// describes.
func (f *Fetcher) transport(rt http.RoundTripper) http.RoundTripper {
	var t *http.Transport
	switch rt := rt.(type) {
	case nil:
		t = &http.Transport{
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
			IdleConnTimeout:       30 * time.Second,
			MaxIdleConns:          16,
		}
	case *http.Transport:
		t = rt.Clone()
	default:
		return rt
	}
	t.Proxy = nil
	t.OnProxyConnectResponse = nil
	t.GetProxyConnectHeader = nil
	t.DialTLS = nil //nolint:staticcheck // a set DialTLS would bypass DialContext
	t.DialTLSContext = nil
	t.DialContext = f.dial
	t.MaxResponseHeaderBytes = maxFetchResponseHead
	return t
}

// Fetch makes req, following redirects, and returns the final response.
// A denial is a [*capabilities.DeniedError]; a request refused for its
// form matches [ErrInvalidFetch]; running out of time matches
// [context.DeadlineExceeded], and a cancelled ctx its error. An HTTP
// error status is a response, not an error.
func (f *Fetcher) Fetch(ctx context.Context, req *FetchRequest) (*FetchResponse, error) {
	hreq, u, err := f.newRequest(req)
	if err != nil {
		return nil, err
	}
	where := fetchRedacted(u)
	if err := f.check(ctx, u, "fetch"); err != nil {
		return nil, err
	}

	tctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	fail := func(err error) error {
		if de, ok := errors.AsType[*capabilities.DeniedError](err); ok {
			return de
		}
		if errors.Is(err, errTooManyRedirects) {
			return fmt.Errorf("fetch %s: %w", where, errTooManyRedirects)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("fetch %s: %w", where, ctx.Err())
		}
		if tctx.Err() != nil {
			return fmt.Errorf("fetch %s: no complete response within %v: %w", where, f.timeout, context.DeadlineExceeded)
		}
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return fmt.Errorf("fetch %s: %w", where, err)
	}

	resp, err := f.client.Do(hreq.WithContext(tctx))
	if err != nil {
		return nil, fail(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxResponse+1))
	if err != nil {
		return nil, fail(err)
	}
	out := &FetchResponse{
		Status:  resp.StatusCode,
		Headers: make(map[string]string, len(resp.Header)),
		Body:    body,
		URL:     fetchRedacted(resp.Request.URL),
	}
	if int64(len(body)) > f.maxResponse {
		out.Body = body[:f.maxResponse]
		out.Truncated = true
	}
	for k, vv := range resp.Header {
		if !fetchHopByHop(k) {
			out.Headers[k] = strings.Join(vv, ", ")
		}
	}
	return out, nil
}

// fetchMethods are the methods a [FetchRequest] may use.
var fetchMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost,
	http.MethodPut, http.MethodPatch, http.MethodDelete,
}

// newRequest checks the form of req and builds the HTTP request for it.
func (f *Fetcher) newRequest(req *FetchRequest) (*http.Request, *url.URL, error) {
	bad := func(format string, args ...any) (*http.Request, *url.URL, error) {
		return nil, nil, fmt.Errorf("%w: "+format, append([]any{ErrInvalidFetch}, args...)...)
	}
	if req == nil {
		return bad("no request")
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	if !slices.Contains(fetchMethods, method) {
		return bad("method %.32q is not allowed; use %s", req.Method, strings.Join(fetchMethods, ", "))
	}
	if len(req.Body) > maxFetchRequestBody {
		return bad("body of %d bytes is over the limit of %d bytes", len(req.Body), maxFetchRequestBody)
	}
	u, err := checkFetchURL(req.URL)
	if err != nil {
		return bad("%v", err)
	}

	h := make(http.Header, len(req.Headers))
	if len(req.Headers) > maxFetchHeaders {
		return bad("%d headers, over the limit of %d", len(req.Headers), maxFetchHeaders)
	}
	size := 0
	for k, v := range req.Headers {
		size += len(k) + len(v)
		if !validFetchHeaderName(k) {
			return bad("header name %.64q is not a valid HTTP token", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return bad("header %s holds a line break or NUL", k)
		}
		switch ck := http.CanonicalHeaderKey(k); {
		case ck == "Host":
			return bad("the Host header cannot be set; the host is the URL's")
		case fetchHopByHop(ck), ck == "Content-Length":
			// The transport frames the request; drop what would contradict it.
		default:
			h.Set(ck, v)
		}
	}
	if size > maxFetchHeaderBytes {
		return bad("headers of %d bytes are over the limit of %d bytes", size, maxFetchHeaderBytes)
	}
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", "skillrun")
	}

	var body io.Reader
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequest(method, u.String(), body)
	if err != nil {
		return bad("%v", err)
	}
	hreq.Header = h
	return hreq, u, nil
}

// checkFetchURL parses an absolute http or https URL without user info, with a
// host in ASCII.
func checkFetchURL(raw string) (*url.URL, error) {
	if len(raw) > maxFetchURLLen {
		return nil, fmt.Errorf("URL of %d bytes is over the limit of %d bytes", len(raw), maxFetchURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return nil, fmt.Errorf("URL %.200q is not absolute; write http://host/path or https://host/path", raw)
		}
		return nil, fmt.Errorf("scheme %q is not allowed; only http and https URLs are fetched", u.Scheme)
	case u.Opaque != "":
		return nil, fmt.Errorf("URL %.200q has no host; write %s://host/path", raw, u.Scheme)
	case u.User != nil:
		return nil, fmt.Errorf("URL %s holds user info; send credentials in an Authorization header instead", u.Redacted())
	case u.Hostname() == "":
		return nil, fmt.Errorf("URL %.200q has no host", raw)
	}
	if _, err := fetchPort(u); err != nil {
		return nil, err
	}
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err != nil {
		for i := 0; i < len(host); i++ {
			c := host[i]
			if c >= 0x80 {
				return nil, fmt.Errorf("host %q is not ASCII; use its punycode (xn--) form", host)
			}
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				return nil, fmt.Errorf("host %q contains %q", host, c)
			}
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// fetchPort returns the port of u, or the default port of its scheme.
func fetchPort(u *url.URL) (int, error) {
	p := u.Port()
	if p == "" {
		if u.Scheme == "https" {
			return 443, nil
		}
		return 80, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q is outside 1..65535", p)
	}
	return n, nil
}

// check checks the host and port of u against the grant and audits the
// decision. why is the reason recorded for an allowed use.
func (f *Fetcher) check(ctx context.Context, u *url.URL, why string) error {
	port, err := fetchPort(u)
	host := u.Hostname()
	value := net.JoinHostPort(host, strconv.Itoa(port))
	if err == nil {
		err = capabilities.Set{Net: f.net}.CheckNet(host, port)
	} else {
		err = &capabilities.DeniedError{Kind: "net", Value: value, Reason: err.Error()}
	}
	if de, ok := errors.AsType[*capabilities.DeniedError](err); ok {
		de.Skill, de.Script = f.skill, f.script
		f.audit(ctx, value, audit.Deny, de.Error())
		return de
	}
	f.audit(ctx, value, audit.Allow, why)
	return nil
}

func (f *Fetcher) audit(ctx context.Context, value string, d audit.Decision, reason string) {
	a := f.auditor
	if a == nil {
		a = audit.AuditorFrom(ctx)
	}
	a.Audit(ctx, audit.Event{
		Time: time.Now(), Skill: f.skill, Script: f.script,
		Kind: "net", Value: value, Decision: d, Reason: reason,
	})
}

// fetchCredentialHeaders are not forwarded on a redirect that leaves the
// original origin.
var fetchCredentialHeaders = []string{"Authorization", "Proxy-Authorization", "Www-Authenticate", "Cookie", "Cookie2"}

// checkRedirect is the http.Client's CheckRedirect: it counts the hop,
// checks it like the first URL, and strips credentials and the Referer
// the client adds.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if f.maxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > f.maxRedirects {
		return fmt.Errorf("stopped after %d redirects: %w", f.maxRedirects, errTooManyRedirects)
	}
	ctx := req.Context()
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		value := req.URL.Scheme + "://" + req.URL.Host
		err := &capabilities.DeniedError{Kind: "net", Value: value, Skill: f.skill, Script: f.script,
			Reason: fmt.Sprintf("redirect to a %q URL; only http and https URLs are fetched", req.URL.Scheme)}
		f.audit(ctx, value, audit.Deny, err.Error())
		return err
	}
	if err := f.check(ctx, req.URL, fmt.Sprintf("redirect %d", len(via))); err != nil {
		return err
	}
	orig := via[0]
	if slices.ContainsFunc(append(via[1:len(via):len(via)], req), func(r *http.Request) bool { return !sameOrigin(r.URL, orig.URL) }) {
		for _, k := range fetchCredentialHeaders {
			req.Header.Del(k)
		}
	}
	if ref := orig.Header.Get("Referer"); ref != "" {
		req.Header.Set("Referer", ref)
	} else {
		req.Header.Del("Referer")
	}
	return nil
}

// sameOrigin reports whether a and b share scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	pa, _ := fetchPort(a)
	pb, _ := fetchPort(b)
	return a.Scheme == b.Scheme && pa == pb &&
		strings.EqualFold(strings.TrimSuffix(a.Hostname(), "."), strings.TrimSuffix(b.Hostname(), "."))
}

// dial is the transport's DialContext. addr is the URL's host:port; the
// dialer's control function checks each address it resolves to before
// connecting.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("bad port in %q", addr)
	}
	value := net.JoinHostPort(host, portText)
	// The URL was checked already; checking again costs little and keeps a
	// cloned transport from reaching anything else.
	if de, ok := errors.AsType[*capabilities.DeniedError]((capabilities.Set{Net: f.net}).CheckNet(host, port)); ok {
		de.Skill, de.Script = f.skill, f.script
		f.audit(ctx, value, audit.Deny, de.Error())
		return nil, de
	}

	var (
		mu     sync.Mutex
		denied *capabilities.DeniedError
	)
	d := net.Dialer{
		Resolver: f.resolver,
		ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
			err := f.checkAddr(host, port, value, address)
			if err != nil {
				mu.Lock()
				if denied == nil {
					denied = err
				}
				mu.Unlock()
				return err
			}
			return nil
		},
	}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		mu.Lock()
		de := denied
		mu.Unlock()
		if de != nil {
			f.audit(ctx, value, audit.Deny, de.Error())
			return nil, de
		}
		return nil, err
	}
	return conn, nil
}

// checkAddr checks address, the "ip:port" a connection to host:port is
// about to use, as [Fetcher] describes.
func (f *Fetcher) checkAddr(host string, port int, value, address string) *capabilities.DeniedError {
	deny := func(reason string) *capabilities.DeniedError {
		return &capabilities.DeniedError{Kind: "net", Value: value, Skill: f.skill, Script: f.script, Reason: reason}
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return deny(fmt.Sprintf("cannot parse the address %q to connect to", address))
	}
	a := ap.Addr().Unmap()
	class := capabilities.AddrClass(a)
	if class == "" || f.grantsAddr(host, a, port) {
		return nil
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	what := fmt.Sprintf("%s resolves to %s, a %s address", host, a, class)
	if host == a.String() {
		what = fmt.Sprintf("%s is a %s address", host, class)
	}
	hint := a.String()
	switch {
	case a.Zone() != "":
		return deny(what + "; addresses with a zone are never reached")
	case a.Is6():
		hint = "[" + hint + "]"
	}
	if host == "localhost" && a.IsLoopback() {
		hint = "localhost"
	}
	return deny(fmt.Sprintf("%s, which only a grant naming it reaches, not a wildcard or another host name (add %s)",
		what, capabilities.FlagFor("net", hint)))
}

// grantsAddr reports whether the grant names the special-purpose address
// a explicitly for a connection to host:port.
func (f *Fetcher) grantsAddr(host string, a netip.Addr, port int) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return slices.ContainsFunc(f.net, func(p capabilities.HostPattern) bool {
		if p.Wildcard || (p.Port != 0 && p.Port != port) {
			return false
		}
		return p.Host == a.String() ||
			p.Host == "localhost" && host == "localhost" && a.IsLoopback()
	})
}

// fetchHopByHop reports whether the canonical header name k is a hop-by-hop
// header (RFC 9110 §7.6.1) or framing header that a fetch does not pass
// on.
func fetchHopByHop(k string) bool {
	switch k {
	case "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// validFetchHeaderName reports whether k is a non-empty HTTP token.
func validFetchHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// fetchRedacted returns u without user info, as text.
func fetchRedacted(u *url.URL) string {
	v := *u
	v.User = nil
	return v.String()
}
