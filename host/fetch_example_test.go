package host_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
)

// A grant names the hosts a script may reach. A test server listens on
// loopback, which a wildcard grant never reaches: the grant names its
// address and port.
func ExampleFetcher_Fetch() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "hello, %s", body)
	}))
	defer srv.Close()

	pattern, err := capabilities.ParseHostPattern(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		panic(err)
	}
	f := host.NewFetcher(capabilities.Set{Net: []capabilities.HostPattern{pattern}}, nil)
	resp, err := f.Fetch(context.Background(), &host.FetchRequest{
		Method: "POST",
		URL:    srv.URL + "/greet",
		Body:   []byte("skill"),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Status, string(resp.Body))
	// Output:
	// 200 hello, skill
}

// A host the grant does not name is refused before any connection, with
// an error that names the flag to add, and an audit event.
func ExampleNewFetcher() {
	grant := capabilities.Set{Net: []capabilities.HostPattern{{Host: "api.example.com", Port: 443}}}
	audit := audit.AuditorFunc(func(_ context.Context, e audit.Event) {
		fmt.Println("audit:", e.Kind, e.Value, e.Decision)
	})
	f := host.NewFetcher(grant, &host.FetchOptions{Auditor: audit, Skill: "weather", Script: "forecast"})

	_, err := f.Fetch(context.Background(), &host.FetchRequest{URL: "https://tracker.example.net/collect"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, capabilities.ErrDenied))
	// Output:
	// audit: net tracker.example.net:443 deny
	// weather:forecast: net tracker.example.net:443 denied: not granted (add --allow-net=tracker.example.net)
	// true
}
