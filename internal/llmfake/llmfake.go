// Package llmfake runs fake model servers on the loopback interface that
// speak the real wire formats: Anthropic's Messages API (POST /v1/messages)
// and OpenAI's chat completions (POST /chat/completions, also under /v1).
// Tests and CLI scripts point a provider at [Server.URL] and script the
// replies; the fake records every request so a test can check what was sent.
//
// # Replies
//
// A [Reply] is either a scripted assistant turn (Text, ToolCalls, Stop,
// Usage), which the fake encodes in the wire format of its API, or a raw
// HTTP reply (Status, Header, Body) for error paths: a 429 with
// retry-after-ms, a 529, a body that is not JSON. Replies are used in order,
// one a request; when they run out the fake answers HTTP 500 with the
// message "llmfake: no more replies".
//
// # Requests
//
// The fake checks requests the way the real APIs do where a wrong mapping
// would show: required fields, roles, and that every tool call of an
// assistant turn is answered by the next turn's tool results with matching
// ids. A request that fails these checks gets a 400 in the API's error
// format, and is recorded like any other.
//
// The package imports nothing from skillrun, so any layer's tests may use
// it; it never imports testing.
package llmfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// A Reply is the fake's answer to one request.
//
// If Status is 0 and Body is "", the reply is an assistant turn in the
// wire format of the server. Otherwise it is a raw HTTP reply: Body is sent
// as it is (with content type application/json unless Header says
// otherwise); an empty Body with an error Status gets an error object in
// the API's format whose message is Text.
type Reply struct {
	// Text is the assistant's text (or, for an error Status, the message).
	Text string `json:"text,omitempty"`
	// ToolCalls are the calls of the turn, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Stop is the API's own stop word: "end_turn", "tool_use",
	// "max_tokens"... for Anthropic, "stop", "tool_calls", "length"... for
	// OpenAI. "" is tool use if there are ToolCalls, else end of turn.
	Stop string `json:"stop,omitempty"`
	// Usage is reported with the turn.
	Usage Usage `json:"usage,omitzero"`
	// Model names the model in the reply; "" echoes the request's model.
	Model string `json:"model,omitempty"`

	// Status is the HTTP status of a raw reply (0: 200).
	Status int `json:"status,omitempty"`
	// Header is added to the reply's headers. A Content-Type of "" sends
	// none.
	Header http.Header `json:"header,omitempty"`
	// Body is the raw body of the reply.
	Body string `json:"body,omitempty"`

	// Hang holds the request until the client gives up on it (or the
	// server is closed), and then answers nothing: for cancellation tests.
	Hang bool `json:"hang,omitempty"`
}

// A ToolCall is one tool call of a scripted turn.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the JSON of the arguments ("" is {}). For OpenAI it is sent
	// as the arguments string; for Anthropic it must be a JSON object.
	Input string `json:"input,omitempty"`
}

// Usage is the token count a scripted turn reports. Input is the input not
// read from or written to the cache. The fake encodes it as the API does:
// OpenAI's prompt_tokens is Input+CacheRead+CacheWrite with the cached
// part in prompt_tokens_details; Anthropic counts each kind on its own.
type Usage struct {
	Input      int64 `json:"input,omitempty"`
	Output     int64 `json:"output,omitempty"`
	CacheRead  int64 `json:"cache_read,omitempty"`
	CacheWrite int64 `json:"cache_write,omitempty"`
}

// A Request is one request the fake received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// JSON is the body decoded, nil if it was not a JSON object.
	JSON map[string]any
}

// A Server is a fake model server. It is safe for concurrent use: requests
// take replies in the order they arrive.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:port without a
	// trailing slash. It serves both URL and URL+"/v1" as base URLs.
	URL string

	srv    *httptest.Server
	api    api
	closed chan struct{}

	mu       sync.Mutex
	replies  []Reply
	requests []Request
	key      string
	served   int
}

// api is what differs between the two wire formats.
type api interface {
	path() string
	authorized(h http.Header, key string) bool
	check(req map[string]any) error
	encode(r Reply, req map[string]any, n int) any
	errorBody(status int, msg string) any
}

// NewAnthropic starts a fake Anthropic Messages API that answers with
// replies in order. Close it when done.
func NewAnthropic(replies ...Reply) *Server { return start(anthropicAPI{}, replies) }

// NewOpenAI starts a fake OpenAI chat completions API that answers with
// replies in order. Close it when done.
func NewOpenAI(replies ...Reply) *Server { return start(openaiAPI{}, replies) }

func start(a api, replies []Reply) *Server {
	s := &Server{api: a, replies: replies, closed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// RequireKey makes the server answer 401 to requests that do not carry key
// the way the API expects it (x-api-key for Anthropic, Authorization:
// Bearer for OpenAI). It returns s.
func (s *Server) RequireKey(key string) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count returns how many requests the server received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Close shuts the server down, releasing requests held by [Reply.Hang].
func (s *Server) Close() {
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	s.srv.Close()
}

// maxRequest bounds a request body the fake reads.
const maxRequest = 32 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest))
	if err != nil {
		s.writeError(w, http.StatusBadRequest, "llmfake: reading the request: "+err.Error())
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		rec.JSON = obj
	}

	s.mu.Lock()
	s.requests = append(s.requests, rec)
	key := s.key
	s.mu.Unlock()

	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, s.api.path()) {
		s.writeError(w, http.StatusNotFound, fmt.Sprintf("llmfake: no route for %s %s", r.Method, r.URL.Path))
		return
	}
	if key != "" && !s.api.authorized(r.Header, key) {
		s.writeError(w, http.StatusUnauthorized, "llmfake: missing or wrong API key")
		return
	}
	if rec.JSON == nil {
		s.writeError(w, http.StatusBadRequest, "llmfake: the request body is not a JSON object")
		return
	}
	if err := s.api.check(rec.JSON); err != nil {
		s.writeError(w, http.StatusBadRequest, "llmfake: "+err.Error())
		return
	}

	s.mu.Lock()
	var (
		reply Reply
		ok    bool
		n     = s.served
	)
	if len(s.replies) > 0 {
		reply, s.replies, ok = s.replies[0], s.replies[1:], true
		s.served++
	}
	s.mu.Unlock()
	if !ok {
		s.writeError(w, http.StatusInternalServerError, "llmfake: no more replies")
		return
	}
	if reply.Hang {
		select {
		case <-s.closed:
		case <-r.Context().Done():
		}
		return
	}
	s.write(w, reply, rec.JSON, n)
}

func (s *Server) write(w http.ResponseWriter, reply Reply, req map[string]any, n int) {
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	switch ct, set := reply.Header[http.CanonicalHeaderKey("Content-Type")]; {
	case !set:
		w.Header().Set("Content-Type", "application/json")
	case len(ct) == 0 || ct[0] == "":
		w.Header()["Content-Type"] = nil // none at all, not even sniffed
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case reply.Body != "":
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.Body) // a client that left is not the fake's failure
	case status >= 400:
		msg := reply.Text
		if msg == "" {
			msg = http.StatusText(status)
		}
		writeJSON(w, status, s.api.errorBody(status, msg))
	default:
		writeJSON(w, status, s.api.encode(reply, req, n))
	}
}

func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	writeJSON(w, status, s.api.errorBody(status, msg))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, "llmfake: encoding the reply: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// input returns a tool call's input as JSON, {} when empty.
func (c ToolCall) input() json.RawMessage {
	if strings.TrimSpace(c.Input) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(c.Input)
}
