package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/skillrun/skillrun/agent"
)

// A guard is the HTTP middleware both providers install in their SDK. It
// sees every reply before the SDK does and turns each failure into an
// [*agent.ProviderError] the SDK passes through as it is: an error status
// (with the provider's message and Retry-After), a body that is too large,
// not JSON or of another content type, and a transport error. What reaches
// the SDK's decoder is a bounded JSON object.
type guard struct {
	provider string
	key      string // redacted from every message
}

// middleware has the shape of both SDKs' option.Middleware.
func (g guard) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		if req.Context().Err() != nil {
			// Cancelled or timed out: the caller sorts out which.
			return nil, err
		}
		return nil, g.fail(agent.ErrConnection, 0, err.Error(), err)
	}
	body, readErr := readBounded(res.Body, MaxResponseBytes)
	res.Body.Close()
	if readErr != nil && !errors.Is(readErr, errTooLarge) {
		if req.Context().Err() != nil {
			return nil, readErr
		}
		return nil, g.fail(agent.ErrConnection, res.StatusCode, "reading the reply: "+readErr.Error(), readErr)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		pe := g.fail(statusKind(res.StatusCode), res.StatusCode, errorMessage(body), nil)
		pe.RetryAfter = retryAfter(res.Header, time.Now())
		return nil, pe
	}
	if readErr != nil {
		return nil, g.fail(agent.ErrMalformed, res.StatusCode, fmt.Sprintf("the reply is larger than %d bytes", MaxResponseBytes), readErr)
	}
	ct := res.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	isJSON := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if !isJSON && ct != "" {
		return nil, g.fail(agent.ErrMalformed, res.StatusCode, fmt.Sprintf("the reply is %s, not JSON: %s", ct, snippet(body)), nil)
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, g.fail(agent.ErrMalformed, res.StatusCode, "the reply is not a JSON object: "+snippet(body), nil)
	}
	// A server that sends JSON without saying so (some local ones) is
	// taken at its word; the SDK decodes only what is labelled JSON.
	res.Header.Set("Content-Type", "application/json")
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	return res, nil
}

// fail makes a ProviderError whose message is bounded and has no key.
func (g guard) fail(kind agent.ErrorKind, status int, msg string, err error) *agent.ProviderError {
	return &agent.ProviderError{
		Provider: g.provider,
		Kind:     kind,
		Status:   status,
		Message:  g.redact(msg),
		Err:      err,
	}
}

func (g guard) redact(s string) string {
	if len(g.key) >= 4 {
		s = strings.ReplaceAll(s, g.key, "[redacted]")
	}
	return agent.Truncate(s, agent.MaxErrorMessage)
}

// classify turns whatever the SDK returned into the error Complete
// returns: the guard's ProviderError, the caller's context error (so
// errors.Is(err, context.Canceled) holds), a timeout as a connection
// error, and anything else, which is the SDK failing to decode a reply
// the guard let through, as malformed.
func (g guard) classify(ctx context.Context, err error, timeout time.Duration) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", g.provider, ctxErr)
	}
	if pe, ok := errors.AsType[*agent.ProviderError](err); ok {
		return pe
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return g.fail(agent.ErrConnection, 0, fmt.Sprintf("no reply within %v", timeout), err)
	}
	return g.fail(agent.ErrMalformed, 0, err.Error(), err)
}

// statusKind classifies an HTTP status that is not a success.
func statusKind(status int) agent.ErrorKind {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return agent.ErrAuth
	case status == http.StatusTooManyRequests:
		return agent.ErrRateLimit
	case status == http.StatusRequestTimeout:
		// The server gave up waiting for the request: a lost connection
		// in all but name, and worth sending again.
		return agent.ErrConnection
	case status >= 500: // 529 is Anthropic's "overloaded"
		return agent.ErrServer
	case status >= 400:
		return agent.ErrBadRequest
	}
	return agent.ErrMalformed // 1xx, or a 3xx that was not followed
}

// errorMessage returns the message of an error body: error.message in
// both APIs' formats, else the body's text.
func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		if e.Error.Type != "" {
			return e.Error.Type + ": " + e.Error.Message
		}
		return e.Error.Message
	}
	return snippet(body)
}

// snippet returns the start of an untrusted body as one trimmed line.
func snippet(body []byte) string {
	const n = 200
	s := strings.TrimSpace(string(body[:min(len(body), n+4)]))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(empty body)"
	}
	return agent.Truncate(strings.ToValidUTF8(s, "\uFFFD"), n)
}

// retryAfter reads the wait a reply asks for: retry-after-ms (Anthropic,
// OpenAI), then Retry-After in seconds or as an HTTP date. It returns 0 if
// there is none or it makes no sense.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < float64(24*time.Hour/time.Millisecond) {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < (24*time.Hour).Seconds() {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 && d < 24*time.Hour {
			return d
		}
	}
	return 0
}

var errTooLarge = errors.New("reply body too large")

// readBounded reads r up to limit bytes, and fails with errTooLarge if
// there is more.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return b[:limit], errTooLarge
	}
	return b, nil
}
