package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
)

// fetchGrant parses host patterns into a Set, failing the test on a bad
// one.
func fetchGrant(t *testing.T, patterns ...string) capabilities.Set {
	t.Helper()
	var s capabilities.Set
	for _, p := range patterns {
		hp, err := capabilities.ParseHostPattern(p)
		if err != nil {
			t.Fatal(err)
		}
		s.Net = append(s.Net, hp)
	}
	return s
}

// fetchServerHost returns the "127.0.0.1:port" of a test server.
func fetchServerHost(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// fetchServerPort returns the port of a test server.
func fetchServerPort(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, port, err := net.SplitHostPort(fetchServerHost(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// fetchRecorder is an Auditor that keeps the events, without their times.
type fetchRecorder struct {
	mu     sync.Mutex
	events []audit.Event
}

func (r *fetchRecorder) Audit(_ context.Context, e audit.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Time = time.Time{}
	r.events = append(r.events, e)
}

func (r *fetchRecorder) Events() []audit.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]audit.Event(nil), r.events...)
}

// fetchCounting counts requests to a handler.
func fetchCounting(n *atomic.Int32, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}
}

// fetchNoTransport fails the test if a request gets as far as a connection.
type fetchNoTransport struct{ t *testing.T }

func (n fetchNoTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("unexpected round trip to %s", r.URL)
	return nil, errors.New("no network in this test")
}

// wantFetchDenied checks that err is a *DeniedError for value whose message
// holds every one of parts.
func wantFetchDenied(t *testing.T, err error, value string, parts ...string) {
	t.Helper()
	de, ok := errors.AsType[*capabilities.DeniedError](err)
	if !ok {
		t.Fatalf("err = %v (%T), want a *capabilities.DeniedError", err, err)
	}
	if !errors.Is(err, capabilities.ErrDenied) {
		t.Errorf("errors.Is(%v, ErrDenied) = false", err)
	}
	if de.Kind != "net" || de.Value != value {
		t.Errorf("denied %s %s, want net %s", de.Kind, de.Value, value)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestFetchAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "%s %s %s ua=%s x=%s", r.Method, r.URL.Path, body, r.UserAgent(), r.Header.Get("X-Test"))
	}))
	defer srv.Close()
	rec := &fetchRecorder{}
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), &FetchOptions{Auditor: rec, Skill: "s", Script: "x"})

	resp, err := f.Fetch(t.Context(), &FetchRequest{
		Method:  "post",
		URL:     srv.URL + "/echo#frag",
		Headers: map[string]string{"x-test": "yes"},
		Body:    []byte("hello"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &FetchResponse{
		Status: http.StatusCreated,
		Body:   []byte("POST /echo hello ua=skillrun x=yes"),
		URL:    srv.URL + "/echo",
	}
	got := *resp
	got.Headers = nil // checked one by one below
	assert.Equal(t, want, &got)
	if got := resp.Headers["X-Multi"]; got != "a, b" {
		t.Errorf("X-Multi = %q, want %q", got, "a, b")
	}
	if _, ok := resp.Headers["Connection"]; ok {
		t.Errorf("hop-by-hop Connection header passed on: %v", resp.Headers)
	}
	wantEvents := []audit.Event{{Skill: "s", Script: "x", Kind: "net", Value: fetchServerHost(t, srv), Decision: audit.Allow, Reason: "fetch"}}
	assert.Equal(t, wantEvents, rec.Events(), "events")

	// GET is the default method, and HEAD has no body.
	resp, err = f.Fetch(t.Context(), &FetchRequest{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(resp.Body), "GET / ") {
		t.Errorf("default method: body %q", resp.Body)
	}
	resp, err = f.Fetch(t.Context(), &FetchRequest{Method: "HEAD", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusCreated || len(resp.Body) != 0 {
		t.Errorf("HEAD: status %d body %q", resp.Status, resp.Body)
	}
}

func TestFetchHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secure")
	}))
	defer srv.Close()
	// The test server's transport trusts its certificate; the Fetcher
	// clones it and keeps its own dialer.
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), &FetchOptions{Transport: srv.Client().Transport})
	resp, err := f.Fetch(t.Context(), &FetchRequest{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "secure" {
		t.Errorf("body %q", resp.Body)
	}

	f = NewFetcher(fetchGrant(t, "*"), &FetchOptions{Transport: srv.Client().Transport})
	_, err = f.Fetch(t.Context(), &FetchRequest{URL: srv.URL})
	wantFetchDenied(t, err, fetchServerHost(t, srv), "loopback")
}

func TestFetchDeniedHost(t *testing.T) {
	for _, tc := range []struct {
		grant []string
		url   string
		value string
		flag  string
	}{
		{nil, "https://api.example.com/v1", "api.example.com:443", "--allow-net=api.example.com"},
		{[]string{"api.example.com:443"}, "http://api.example.com/", "api.example.com:80", "--allow-net=api.example.com"},
		{[]string{"*.example.org"}, "http://example.org/", "example.org:80", "--allow-net=example.org"},
		{[]string{"api.example.com"}, "http://API.EXAMPLE.net:8080/", "API.EXAMPLE.net:8080", "--allow-net=api.example.net"},
		{[]string{"*"}, "http://[fe80::1%25eth0]/", "[fe80::1%eth0]:80", ""},
	} {
		t.Run(tc.url, func(t *testing.T) {
			rec := &fetchRecorder{}
			f := NewFetcher(fetchGrant(t, tc.grant...), &FetchOptions{Auditor: rec, Skill: "sk", Script: "sc", Transport: fetchNoTransport{t}})
			_, err := f.Fetch(t.Context(), &FetchRequest{URL: tc.url})
			wantFetchDenied(t, err, tc.value, "sk:sc: net "+tc.value+" denied", tc.flag)
			ev := rec.Events()
			if len(ev) != 1 || ev[0].Decision != audit.Deny || ev[0].Value != tc.value || ev[0].Reason != err.Error() {
				t.Errorf("events = %+v, want one deny of %s", ev, tc.value)
			}
		})
	}
}

func TestFetchLoopbackNeedsExplicitGrant(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(fetchCounting(&hits, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	port := fetchServerPort(t, srv)
	localURL := "http://localhost:" + port + "/"

	for _, tc := range []struct {
		name  string
		grant []string
		url   string
		flag  string // "" means allowed
	}{
		{"wildcard", []string{"*"}, srv.URL, "--allow-net=127.0.0.1"},
		{"wildcard with port", []string{"*:" + port}, srv.URL, "--allow-net=127.0.0.1"},
		{"literal", []string{"127.0.0.1:" + port}, srv.URL, ""},
		{"literal any port", []string{"127.0.0.1"}, srv.URL, ""},
		{"localhost by wildcard", []string{"*"}, localURL, "--allow-net=localhost"},
		{"localhost granted", []string{"localhost:" + port}, localURL, ""},
		{"localhost not granted", []string{"127.0.0.1:" + port}, localURL, "--allow-net=localhost"},
		{"literal named, host by wildcard", []string{"*", "127.0.0.1"}, localURL, ""},
		{"localhost grant is not a literal grant", []string{"localhost", "*"}, srv.URL, "--allow-net=127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			f := NewFetcher(fetchGrant(t, tc.grant...), nil)
			resp, err := f.Fetch(t.Context(), &FetchRequest{URL: tc.url})
			if tc.flag == "" {
				if err != nil {
					t.Fatal(err)
				}
				if string(resp.Body) != "ok" {
					t.Errorf("body %q", resp.Body)
				}
				return
			}
			de, ok := errors.AsType[*capabilities.DeniedError](err)
			if !ok {
				t.Fatalf("err = %v, want a denial", err)
			}
			if !strings.Contains(de.Error(), tc.flag) {
				t.Errorf("error %q does not name %s", err, tc.flag)
			}
			if hits.Load() != 0 {
				t.Errorf("the server got %d requests", hits.Load())
			}
		})
	}
}

func TestFetchLoopbackDenialMessage(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	rec := &fetchRecorder{}
	f := NewFetcher(fetchGrant(t, "*"), &FetchOptions{Auditor: rec, Skill: "sk", Script: "sc"})
	_, err := f.Fetch(t.Context(), &FetchRequest{URL: "http://localhost:" + fetchServerPort(t, srv)})
	value := "localhost:" + fetchServerPort(t, srv)
	want := "sk:sc: net " + value + " denied: localhost resolves to 127.0.0.1, a loopback address, " +
		"which only a grant naming it reaches, not a wildcard or another host name (add --allow-net=localhost)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	wantEvents := []audit.Event{
		{Skill: "sk", Script: "sc", Kind: "net", Value: value, Decision: audit.Allow, Reason: "fetch"},
		{Skill: "sk", Script: "sc", Kind: "net", Value: value, Decision: audit.Deny, Reason: want},
	}
	assert.Equal(t, wantEvents, rec.Events(), "events")
}

func TestFetchRedirectHopChecked(t *testing.T) {
	var deniedHits atomic.Int32
	denied := httptest.NewServer(fetchCounting(&deniedHits, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") }))
	defer denied.Close()
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			http.Redirect(w, r, "/next", http.StatusFound)
		case "/next":
			http.Redirect(w, r, denied.URL+"/x", http.StatusTemporaryRedirect)
		case "/external":
			http.Redirect(w, r, "http://evil.example/", http.StatusFound)
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	}))
	defer allowed.Close()

	rec := &fetchRecorder{}
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, allowed)), &FetchOptions{Auditor: rec})
	_, err := f.Fetch(t.Context(), &FetchRequest{URL: allowed.URL + "/start"})
	wantFetchDenied(t, err, fetchServerHost(t, denied), "--allow-net=127.0.0.1")
	if deniedHits.Load() != 0 {
		t.Errorf("the denied server got %d requests", deniedHits.Load())
	}
	a, d := fetchServerHost(t, allowed), fetchServerHost(t, denied)
	wantEvents := []audit.Event{
		{Kind: "net", Value: a, Decision: audit.Allow, Reason: "fetch"},
		{Kind: "net", Value: a, Decision: audit.Allow, Reason: "redirect 1"},
		{Kind: "net", Value: d, Decision: audit.Deny, Reason: err.Error()},
	}
	assert.Equal(t, wantEvents, rec.Events(), "events")

	_, err = f.Fetch(t.Context(), &FetchRequest{URL: allowed.URL + "/external"})
	wantFetchDenied(t, err, "evil.example:80", "--allow-net=evil.example")

	_, err = f.Fetch(t.Context(), &FetchRequest{URL: allowed.URL + "/file"})
	wantFetchDenied(t, err, "file://", `redirect to a "file" URL`)
}

func TestFetchRedirectLimit(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(fetchCounting(&hits, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	}))
	defer srv.Close()
	grant := fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv))

	for _, tc := range []struct{ max, hits int }{{0, 1 + defaultFetchMaxRedirects}, {2, 3}} {
		hits.Store(0)
		f := NewFetcher(grant, &FetchOptions{MaxRedirects: tc.max})
		_, err := f.Fetch(t.Context(), &FetchRequest{URL: srv.URL})
		if !errors.Is(err, errTooManyRedirects) {
			t.Errorf("MaxRedirects %d: err = %v, want errTooManyRedirects", tc.max, err)
		}
		if int(hits.Load()) != tc.hits {
			t.Errorf("MaxRedirects %d: %d requests, want %d", tc.max, hits.Load(), tc.hits)
		}
	}

	// A negative MaxRedirects hands the redirect to the guest.
	hits.Store(0)
	f := NewFetcher(grant, &FetchOptions{MaxRedirects: -1})
	resp, err := f.Fetch(t.Context(), &FetchRequest{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusFound || resp.Headers["Location"] != "/loop" || hits.Load() != 1 {
		t.Errorf("got status %d, location %q, %d requests; want 302, /loop, 1", resp.Status, resp.Headers["Location"], hits.Load())
	}
}

func TestFetchRedirectCredentials(t *testing.T) {
	type seen struct{ auth, cookie, referer string }
	var (
		mu   sync.Mutex
		last seen
	)
	record := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = seen{r.Header.Get("Authorization"), r.Header.Get("Cookie"), r.Header.Get("Referer")}
		mu.Unlock()
	}
	target := httptest.NewServer(http.HandlerFunc(record))
	defer target.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/final", http.StatusFound)
		case "/other-host":
			http.Redirect(w, r, "http://localhost:"+fetchServerPort(t, target)+"/final", http.StatusFound)
		case "/other-port":
			http.Redirect(w, r, target.URL+"/final", http.StatusFound)
		case "/away-and-back":
			http.Redirect(w, r, target.URL+"/back", http.StatusFound)
		default:
			record(w, r)
		}
	}))
	defer origin.Close()
	target.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/back" {
			http.Redirect(w, r, origin.URL+"/final", http.StatusFound)
			return
		}
		record(w, r)
	})

	f := NewFetcher(fetchGrant(t, "127.0.0.1", "localhost"), nil)
	for _, tc := range []struct {
		path string
		want seen
	}{
		{"/same", seen{"Bearer t", "c=1", ""}},
		{"/other-host", seen{}},
		{"/other-port", seen{}},
		{"/away-and-back", seen{}},
	} {
		mu.Lock()
		last = seen{"unset", "unset", "unset"}
		mu.Unlock()
		_, err := f.Fetch(t.Context(), &FetchRequest{
			URL:     origin.URL + tc.path + "?key=secret",
			Headers: map[string]string{"Authorization": "Bearer t", "Cookie": "c=1"},
		})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := last
		mu.Unlock()
		if got != tc.want {
			t.Errorf("%s: the final server saw %+v, want %+v", tc.path, got, tc.want)
		}
	}
}

func TestFetchResponseBound(t *testing.T) {
	const max = 1000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		io.WriteString(w, strings.Repeat("x", n))
	}))
	defer srv.Close()
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), &FetchOptions{MaxResponse: max})
	for _, tc := range []struct {
		n         int
		len       int
		truncated bool
	}{
		{max - 1, max - 1, false},
		{max, max, false},
		{max + 1, max, true},
		{10 * max, max, true},
		{10 << 20, max, true},
	} {
		resp, err := f.Fetch(t.Context(), &FetchRequest{URL: srv.URL + "/?n=" + strconv.Itoa(tc.n)})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Body) != tc.len || resp.Truncated != tc.truncated {
			t.Errorf("%d bytes served: got %d bytes, truncated %v; want %d, %v", tc.n, len(resp.Body), resp.Truncated, tc.len, tc.truncated)
		}
	}
}

func TestFetchTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			io.WriteString(w, "start")
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), &FetchOptions{Timeout: 100 * time.Millisecond})
	for _, path := range []string{"/slow-head", "/slow-body"} {
		start := time.Now()
		_, err := f.Fetch(t.Context(), &FetchRequest{URL: srv.URL + path})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want DeadlineExceeded", path, err)
		} else if !strings.Contains(err.Error(), "within 100ms") {
			t.Errorf("%s: error %q does not name the timeout", path, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", path, d)
		}
	}
}

func TestFetchCancel(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), nil)

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := f.Fetch(ctx, &FetchRequest{URL: srv.URL})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}

	// Already cancelled: no request at all.
	_, err = f.Fetch(ctx, &FetchRequest{URL: srv.URL})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestFetchInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  *FetchRequest
		want string
	}{
		{"nil", nil, "no request"},
		{"file", &FetchRequest{URL: "file:///etc/passwd"}, `scheme "file" is not allowed`},
		{"ftp", &FetchRequest{URL: "ftp://ftp.example.com/x"}, `scheme "ftp" is not allowed`},
		{"gopher", &FetchRequest{URL: "gopher://example.com/"}, `scheme "gopher" is not allowed`},
		{"relative", &FetchRequest{URL: "/etc/passwd"}, "not absolute"},
		{"empty", &FetchRequest{}, "not absolute"},
		{"no host", &FetchRequest{URL: "http:///path"}, "has no host"},
		{"opaque", &FetchRequest{URL: "http:example.com"}, "has no host"},
		{"user info", &FetchRequest{URL: "https://user:pw@example.com/"}, "user info"},
		{"bad port", &FetchRequest{URL: "http://example.com:0/"}, "outside 1..65535"},
		{"big port", &FetchRequest{URL: "http://example.com:70000/"}, "outside 1..65535"},
		{"non-ASCII host", &FetchRequest{URL: "http://bücher.example/"}, "punycode"},
		{"TRACE", &FetchRequest{Method: "TRACE", URL: "http://example.com/"}, `method "TRACE" is not allowed; use GET, HEAD, POST, PUT, PATCH, DELETE`},
		{"CONNECT", &FetchRequest{Method: "CONNECT", URL: "http://example.com/"}, "not allowed"},
		{"junk method", &FetchRequest{Method: "GET /x HTTP/1.1\r\n", URL: "http://example.com/"}, "not allowed"},
		{"body", &FetchRequest{Method: "POST", URL: "http://example.com/", Body: make([]byte, maxFetchRequestBody+1)}, "over the limit of 1048576 bytes"},
		{"Host header", &FetchRequest{URL: "http://example.com/", Headers: map[string]string{"host": "internal"}}, "Host header cannot be set"},
		{"header name", &FetchRequest{URL: "http://example.com/", Headers: map[string]string{"a b": "x"}}, "not a valid HTTP token"},
		{"header value", &FetchRequest{URL: "http://example.com/", Headers: map[string]string{"X": "a\r\nHost: evil"}}, "line break"},
		{"long URL", &FetchRequest{URL: "http://example.com/" + strings.Repeat("a", maxFetchURLLen)}, "URL of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &fetchRecorder{}
			f := NewFetcher(fetchGrant(t, "*"), &FetchOptions{Auditor: rec, Transport: fetchNoTransport{t}})
			_, err := f.Fetch(t.Context(), tc.req)
			if !errors.Is(err, ErrInvalidFetch) {
				t.Fatalf("err = %v, want ErrInvalidFetch", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if ev := rec.Events(); len(ev) != 0 {
				t.Errorf("events %+v, want none", ev)
			}
		})
	}

	// The largest body allowed is sent.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, n)
	}))
	defer srv.Close()
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), nil)
	resp, err := f.Fetch(t.Context(), &FetchRequest{Method: "PUT", URL: srv.URL, Body: make([]byte, maxFetchRequestBody)})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != strconv.Itoa(maxFetchRequestBody) {
		t.Errorf("server read %s bytes", resp.Body)
	}
}

func TestFetchHopByHopHeadersDropped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, k := range []string{"Keep-Alive", "Upgrade", "Te", "Proxy-Authorization", "Trailer"} {
			if v := r.Header.Get(k); v != "" {
				fmt.Fprintf(w, "%s=%s ", k, v)
			}
		}
		fmt.Fprintf(w, "len=%d x=%s", r.ContentLength, r.Header.Get("X-Kept"))
	}))
	defer srv.Close()
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), nil)
	resp, err := f.Fetch(t.Context(), &FetchRequest{Method: "POST", URL: srv.URL, Body: []byte("abc"), Headers: map[string]string{
		"Keep-Alive": "timeout=5", "Upgrade": "websocket", "TE": "trailers", "Proxy-Authorization": "Basic x",
		"Trailer": "X", "Content-Length": "999", "Transfer-Encoding": "chunked", "Connection": "Upgrade", "X-Kept": "1",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(resp.Body), "len=3 x=1"; got != want {
		t.Errorf("server saw %q, want %q", got, want)
	}
}

// TestFetchCustomRoundTripper checks that a RoundTripper that is not an
// *http.Transport is used as it is, behind the URL and hop checks.
func TestFetchCustomRoundTripper(t *testing.T) {
	var urls []string
	rt := fetchRoundTripFunc(func(r *http.Request) (*http.Response, error) {
		urls = append(urls, r.URL.String())
		h := http.Header{}
		status := http.StatusOK
		if r.URL.Host == "a.example" {
			status = http.StatusFound
			h.Set("Location", "https://b.example/")
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader("b")), Request: r}, nil
	})
	f := NewFetcher(fetchGrant(t, "a.example"), &FetchOptions{Transport: rt})
	_, err := f.Fetch(t.Context(), &FetchRequest{URL: "http://a.example/"})
	wantFetchDenied(t, err, "b.example:443", "--allow-net=b.example")
	assert.Equal(t, []string{"http://a.example/"}, urls, "round trips")
}

type fetchRoundTripFunc func(*http.Request) (*http.Response, error)

func (f fetchRoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestFetchAuditorFromContext(t *testing.T) {
	rec := &fetchRecorder{}
	f := NewFetcher(capabilities.Set{}, &FetchOptions{Transport: fetchNoTransport{t}})
	_, err := f.Fetch(audit.WithAuditor(t.Context(), rec), &FetchRequest{URL: "http://example.com/"})
	wantFetchDenied(t, err, "example.com:80")
	if ev := rec.Events(); len(ev) != 1 || ev[0].Decision != audit.Deny {
		t.Errorf("events %+v, want one denial", ev)
	}
}

func TestFetchConcurrent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("r") != "" {
			http.Redirect(w, r, "/?n="+r.URL.Query().Get("n"), http.StatusFound)
			return
		}
		io.WriteString(w, r.URL.Query().Get("n"))
	}))
	defer srv.Close()
	rec := &fetchRecorder{}
	f := NewFetcher(fetchGrant(t, "127.0.0.1:"+fetchServerPort(t, srv)), &FetchOptions{Auditor: rec})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			n := strconv.Itoa(i)
			resp, err := f.Fetch(t.Context(), &FetchRequest{URL: srv.URL + "/?r=1&n=" + n})
			if err != nil {
				t.Error(err)
				return
			}
			if string(resp.Body) != n {
				t.Errorf("request %s got %q", n, resp.Body)
			}
			_, err = f.Fetch(t.Context(), &FetchRequest{URL: "http://denied.example/"})
			if !errors.Is(err, capabilities.ErrDenied) {
				t.Errorf("err = %v, want a denial", err)
			}
		})
	}
	wg.Wait()
	if got := len(rec.Events()); got != 32*3 {
		t.Errorf("%d events, want %d", got, 32*3)
	}
}

func TestFetchAddrClass(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1":          "loopback",
		"127.8.9.10":         "loopback",
		"::1":                "loopback",
		"::ffff:127.0.0.1":   "loopback",
		"10.1.2.3":           "private",
		"172.16.0.1":         "private",
		"172.31.255.255":     "private",
		"192.168.1.1":        "private",
		"fc00::1":            "private",
		"fd12:3456::1":       "private",
		"169.254.169.254":    "link-local",
		"fe80::1":            "link-local",
		"fe80::1%eth0":       "link-local",
		"0.0.0.0":            "unspecified",
		"0.1.2.3":            "unspecified",
		"::":                 "unspecified",
		"224.0.0.1":          "multicast",
		"239.255.255.250":    "multicast",
		"ff02::1":            "multicast",
		"100.64.0.1":         "shared (CGNAT)",
		"100.127.255.255":    "shared (CGNAT)",
		"255.255.255.255":    "reserved",
		"198.18.0.1":         "reserved",
		"::7f00:1":           "reserved",
		"fec0::1":            "site-local",
		"64:ff9b::a9fe:a9fe": "link-local",
		"64:ff9b::808:808":   "",
		"8.8.8.8":            "",
		"100.128.0.1":        "",
		"172.32.0.1":         "",
		"2606:4700::1111":    "",
	} {
		if got := capabilities.AddrClass(netip.MustParseAddr(addr)); got != want {
			t.Errorf("AddrClass(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestFetchCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		grant   []string
		host    string
		address string
		allowed bool
	}{
		{[]string{"*"}, "api.example.com", "93.184.215.14:443", true},
		{[]string{"*"}, "api.example.com", "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443", true},
		{[]string{"api.example.com"}, "api.example.com", "127.0.0.1:443", false},
		{[]string{"api.example.com"}, "api.example.com", "169.254.169.254:80", false},
		{[]string{"api.example.com"}, "api.example.com", "10.0.0.5:443", false},
		{[]string{"api.example.com", "10.0.0.5"}, "api.example.com", "10.0.0.5:443", true},
		{[]string{"api.example.com", "10.0.0.5:80"}, "api.example.com", "10.0.0.5:443", false},
		{[]string{"*.example.com"}, "api.example.com", "192.168.0.1:443", false},
		{[]string{"[::1]:8080"}, "::1", "[::1]:8080", true},
		{[]string{"[::1]:8080"}, "::1", "[::1]:8081", false},
		{[]string{"127.0.0.1"}, "127.0.0.1", "[::ffff:127.0.0.1]:80", true},
		{[]string{"localhost"}, "localhost", "[::1]:80", true},
		{[]string{"localhost"}, "localhost", "10.0.0.1:80", false},
		{[]string{"localhost", "*"}, "rebind.example", "127.0.0.1:80", false},
		{[]string{"*", "*.localhost"}, "localhost", "127.0.0.1:80", false},
		{[]string{"*"}, "fe80::1%eth0", "[fe80::1%eth0]:80", false},
		{[]string{"*"}, "x", "not an address", false},
	} {
		f := NewFetcher(fetchGrant(t, tc.grant...), nil)
		_, portText, _ := net.SplitHostPort(tc.address)
		port, _ := strconv.Atoi(portText)
		err := f.checkAddr(tc.host, port, "v", tc.address)
		if got := err == nil; got != tc.allowed {
			t.Errorf("grant %v, %s at %s: allowed %v (%v), want %v", tc.grant, tc.host, tc.address, got, err, tc.allowed)
		}
	}
}

func TestNewFetcherPanics(t *testing.T) {
	for _, o := range []*FetchOptions{{MaxResponse: -1}, {Timeout: -time.Second}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewFetcher(%+v) did not panic", *o)
				}
			}()
			NewFetcher(capabilities.Set{}, o)
		}()
	}
}
