package host

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
)

// TestFetchNamedLoopbackSurvivesCanonicalForm runs a grant of "*" and
// "127.0.0.1:PORT" the way a run gets it (declared ∩ granted, in
// canonical form) against a loopback server: the explicit entry must
// survive, or the fetch that the operator granted is refused. And a
// declared loopback with only "*" granted stays unreachable: the
// intersection must not turn the operator's wildcard into a named
// address.
func TestFetchNamedLoopbackSurvivesCanonicalForm(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(fetchCounting(&hits, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	named := "127.0.0.1:" + fetchServerPort(t, srv)

	both := fetchGrant(t, "*", named)
	eff := capabilities.Effective(both, both)
	resp, err := NewFetcher(eff, nil).Fetch(t.Context(), &FetchRequest{URL: srv.URL})
	if err != nil {
		t.Fatalf("granted %s, effective %s: %v", capabilities.Describe(both), capabilities.Describe(eff), err)
	}
	if string(resp.Body) != "ok" {
		t.Errorf("body %q", resp.Body)
	}

	eff = capabilities.Effective(fetchGrant(t, named), fetchGrant(t, "*"))
	hits.Store(0)
	_, err = NewFetcher(eff, nil).Fetch(t.Context(), &FetchRequest{URL: srv.URL})
	if !errors.Is(err, capabilities.ErrDenied) || hits.Load() != 0 {
		t.Errorf("declared %s, granted *: err = %v, %d requests reached the server; want a denial and none", named, err, hits.Load())
	}
}

// TestFetchDialRechecksGrant guards the grant check the Fetcher's dialer
// makes when it connects, which covers what the URL check cannot see: a
// transport cloned from the Fetcher's and used for another host.
func TestFetchDialRechecksGrant(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(fetchCounting(&hits, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	rec := &fetchRecorder{}
	// The literal address is granted, so the address check at connect
	// time allows 127.0.0.1 under any name that passed the grant check:
	// only the grant check in the dialer stops the name "localhost".
	f := NewFetcher(fetchGrant(t, "127.0.0.1"), &FetchOptions{Auditor: rec, Skill: "sk", Script: "sc"})
	clone := f.client.Transport.(*http.Transport).Clone()
	client := &http.Client{Transport: clone}
	defer clone.CloseIdleConnections()

	resp, err := client.Get("http://localhost:" + fetchServerPort(t, srv) + "/")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a cloned transport reached localhost, which is not granted (status %d)", resp.StatusCode)
	}
	de, ok := errors.AsType[*capabilities.DeniedError](err)
	if !ok || !strings.Contains(de.Error(), "--allow-net=localhost") || de.Skill != "sk" {
		t.Errorf("err = %v, want a denial of sk:sc naming --allow-net=localhost", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the server got %d requests", hits.Load())
	}
	ev := rec.Events()
	if len(ev) != 1 || ev[0].Decision != audit.Deny || !strings.HasPrefix(ev[0].Value, "localhost:") {
		t.Errorf("events = %+v, want the one denial audited", ev)
	}
}

// TestFetchDNSRebinding guards the address check at connect time: a host
// name the operator granted ("rebind.test") whose DNS answer, given when
// the connection is made, is a loopback address (DNS rebinding) must not
// reach the loopback server. The resolver is Go's own, talking to a DNS
// server played here.
func TestFetchDNSRebinding(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(fetchCounting(&hits, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") }))
	defer srv.Close()
	port := fetchServerPort(t, srv)
	var lookups atomic.Int32
	rec := &fetchRecorder{}
	f := NewFetcher(fetchGrant(t, "rebind.test:"+port), &FetchOptions{Auditor: rec})
	f.resolver = fakeDNS(t, &lookups, netip.MustParseAddr("127.0.0.1"))

	_, err := f.Fetch(t.Context(), &FetchRequest{URL: "http://rebind.test:" + port + "/"})
	de, ok := errors.AsType[*capabilities.DeniedError](err)
	if !ok || !strings.Contains(de.Error(), "rebind.test resolves to 127.0.0.1, a loopback address") {
		t.Fatalf("err = %v, want a denial saying rebind.test resolves to loopback", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the server got %d requests", hits.Load())
	}
	if lookups.Load() == 0 {
		t.Errorf("the fake DNS server was never asked; the test proves nothing")
	}
}

// fakeDNS returns a resolver whose every A query is answered with addr
// (AAAA queries get no answer), over DNS's TCP framing on an in-memory
// connection; lookups counts the A queries.
func fakeDNS(t *testing.T, lookups *atomic.Int32, addr netip.Addr) *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				for {
					var n [2]byte
					if _, err := io.ReadFull(server, n[:]); err != nil {
						return
					}
					q := make([]byte, binary.BigEndian.Uint16(n[:]))
					if _, err := io.ReadFull(server, q); err != nil || len(q) < 12 {
						return
					}
					// The question ends with QTYPE and QCLASS, 4 bytes
					// after the name's terminating zero byte.
					end := 12
					for end < len(q) && q[end] != 0 {
						end += int(q[end]) + 1
					}
					end += 5
					if end > len(q) {
						return
					}
					qtype := binary.BigEndian.Uint16(q[end-4:])
					resp := append([]byte{}, q[:end]...)
					resp[2], resp[3] = 0x81, 0x80 // response, recursion desired and available, no error
					resp[6], resp[7] = 0, 0       // no answers
					resp[8], resp[9], resp[10], resp[11] = 0, 0, 0, 0
					if qtype == 1 { // A
						lookups.Add(1)
						resp[7] = 1
						a := addr.As4()
						resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, a[0], a[1], a[2], a[3])
					}
					var l [2]byte
					binary.BigEndian.PutUint16(l[:], uint16(len(resp)))
					if _, err := server.Write(append(l[:], resp...)); err != nil {
						return
					}
				}
			}()
			return client, nil
		},
	}
}
