package providers_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/skillrun/skillrun/internal/llmfake"
)

// BenchmarkRoundTrip measures what a provider adds to a call: mapping the
// request, the SDK, the guard and mapping the reply. Each iteration makes
// one provider call and one raw http.Post of the same bytes to the same
// fake, and the benchmark reports both and their ratio.
func BenchmarkRoundTrip(b *testing.B) {
	reply := llmfake.Reply{
		Text:      "Reading both files.",
		ToolCalls: []llmfake.ToolCall{{ID: "call_9", Name: "workspace_read", Input: `{"path":"c.txt"}`}},
		Usage:     llmfake.Usage{Input: 900, Output: 40, CacheRead: 300},
	}
	for _, k := range kits {
		b.Run(k.name, func(b *testing.B) {
			s, p := k.start(b, reply)
			req := conversation()
			ctx := context.Background()
			if _, err := p.Complete(ctx, req); err != nil {
				b.Fatal(err)
			}
			sent := s.Requests()[0]
			url := s.URL + sent.Path
			header := http.Header{"Content-Type": {"application/json"}}
			for _, h := range []string{"X-Api-Key", "Authorization", "Anthropic-Version"} {
				if v := sent.Header.Get(h); v != "" {
					header.Set(h, v)
				}
			}
			client := &http.Client{}
			var viaProvider, raw time.Duration
			n := 0
			for b.Loop() {
				s.Add(reply, reply)
				t0 := time.Now()
				if _, err := p.Complete(ctx, req); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(sent.Body))
				if err != nil {
					b.Fatal(err)
				}
				hr.Header = header.Clone()
				res, err := client.Do(hr)
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK {
					b.Fatalf("raw post: %v, status %d", err, res.StatusCode)
				}
				raw += time.Since(t1)
				viaProvider += t1.Sub(t0)
				n++
			}
			b.ReportMetric(float64(viaProvider.Nanoseconds())/float64(n), "provider-ns/call")
			b.ReportMetric(float64(raw.Nanoseconds())/float64(n), "raw-ns/call")
			b.ReportMetric(float64(viaProvider)/float64(raw), "ratio")
		})
	}
}
