package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillrun/skillrun/host"
)

// Defaults of [BridgeOptions].
const (
	defaultCallTimeout  = 60 * time.Second
	defaultStartTimeout = 30 * time.Second
	defaultMaxRestarts  = 3
	defaultMaxResult    = 1 << 20
)

// terminateDuration is how long closing a command server waits, after
// closing its stdin, before it signals the process (SIGTERM, then SIGKILL).
const terminateDuration = 2 * time.Second

// maxToolsPerServer bounds the tool list of one server.
const maxToolsPerServer = 1000

// ErrServerDown is wrapped by the error of a call to a server that failed
// (it could not start, or it crashed) more than [BridgeOptions.MaxRestarts]
// times in a row: the bridge no longer restarts it and such calls fail
// at once.
var ErrServerDown = errors.New("MCP server is down")

// ErrUnknownServer is wrapped by the error of a call naming a server the
// bridge was not configured with.
var ErrUnknownServer = errors.New("unknown MCP server")

// ErrBridgeClosed is wrapped by the error of a call after [Bridge.Close].
var ErrBridgeClosed = errors.New("MCP bridge closed")

// BridgeOptions configure a [Bridge]. A nil *BridgeOptions means all
// defaults.
type BridgeOptions struct {
	// CallTimeout bounds each tool call; 0 means [defaultCallTimeout].
	CallTimeout time.Duration
	// StartTimeout bounds starting (or restarting) a server and listing
	// its tools; 0 means [defaultStartTimeout].
	StartTimeout time.Duration
	// MaxRestarts is how many times in a row a crashed server is
	// restarted; a call that succeeds resets the count. 0 means
	// [defaultMaxRestarts]; a negative value means never restart.
	MaxRestarts int
	// Logger receives restarts, failures and each command server's
	// stderr (at debug level); nil means discard.
	Logger *slog.Logger
	// MaxResult bounds the content, and separately the structured
	// content, of a result, in bytes; 0 means [defaultMaxResult]. Longer
	// content is truncated with a note; longer structured content is
	// dropped with a note.
	MaxResult int
}

// A Bridge connects to MCP servers and makes their tools callable: through
// [Bridge.CallTool] (it implements [host.MCPCaller], for guests) and as
// tools of a [host.Registry] named "mcp__<server>__<tool>"
// ([Bridge.Register]).
//
// A call never waits longer than [BridgeOptions.CallTimeout]. A server
// whose connection breaks (the process exited, or it wrote something that
// is not MCP) is restarted on the next call to it, at most
// [BridgeOptions.MaxRestarts] times in a row; after that, calls to it fail
// at once with an error wrapping [ErrServerDown].
//
// A command server runs with the environment of its [ServerConfig.Env]
// plus PATH and HOME, not the host's whole environment.
//
// A Bridge is safe for concurrent use.
type Bridge struct {
	opts    BridgeOptions
	client  *sdk.Client
	servers map[string]*bridgeServer
}

// NewBridge returns a bridge to servers, which are not started until
// [Bridge.Start].
func NewBridge(servers map[string]ServerConfig, o *BridgeOptions) *Bridge {
	var opts BridgeOptions
	if o != nil {
		opts = *o
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = defaultCallTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	if opts.MaxRestarts == 0 {
		opts.MaxRestarts = defaultMaxRestarts
	} else if opts.MaxRestarts < 0 {
		opts.MaxRestarts = 0
	}
	if opts.MaxResult <= 0 {
		opts.MaxResult = defaultMaxResult
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	b := &Bridge{
		opts: opts,
		client: sdk.NewClient(&sdk.Implementation{Name: "skillrun", Version: "v0"}, &sdk.ClientOptions{
			Logger:       opts.Logger,
			Capabilities: &sdk.ClientCapabilities{}, // no roots, no sampling
		}),
		servers: make(map[string]*bridgeServer, len(servers)),
	}
	for name, cfg := range servers {
		cfg.Args = slices.Clone(cfg.Args)
		cfg.Env = maps.Clone(cfg.Env)
		b.servers[name] = &bridgeServer{name: name, cfg: cfg, b: b, sem: make(chan struct{}, 1)}
	}
	return b
}

// Start connects to every server and lists its tools, concurrently. A
// server that fails (an invalid config, a command that does not start, a
// server that does not answer within [BridgeOptions.StartTimeout]) is
// reported in the returned error, which joins one error naming each failed
// server; the others are started all the same. A server already started
// is left alone.
func (b *Bridge) Start(ctx context.Context) error {
	names := slices.Sorted(maps.Keys(b.servers))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = b.servers[name].start(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Register adds the tools of every started server to r, each named
// [host.MCPToolName](server, tool) with source [host.SourceMCP] and the
// server's input schema. A tool that r refuses (a name outside r's rules,
// a schema that does not compile, a name already taken) is reported in
// the returned error; the others are added all the same.
//
// Calling a registered tool calls [Bridge.CallTool]. A failure of the
// bridge or the server (a timeout, a crash, a server that is down) is a
// result with IsError set, which the model sees, not an error that would
// end the session; only the cancellation of the caller's ctx is an error.
func (b *Bridge) Register(r *host.Registry) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(b.servers)) {
		tools, err := b.servers[name].toolList()
		if err != nil {
			errs = append(errs, &RegisterError{Server: name, Err: err})
			continue
		}
		for _, t := range tools {
			if err := r.Add(&bridgeTool{b: b, server: name, tool: t.Name, def: toolDef(name, t)}); err != nil {
				errs = append(errs, &RegisterError{Server: name, Tool: t.Name, Err: fmt.Errorf("mcp: server %q: tool %q: %w", name, t.Name, err)})
			}
		}
	}
	return errors.Join(errs...)
}

// A RegisterError is one thing [Bridge.Register] left out: a whole server
// (Tool is "") that did not start or list its tools, or one tool of a
// server that the registry refused. The others are registered all the
// same; a caller reports each and goes on.
type RegisterError struct {
	Server string
	// Tool is the server's own name for the tool, "" for the whole server.
	Tool string
	Err  error
}

func (e *RegisterError) Error() string { return e.Err.Error() }
func (e *RegisterError) Unwrap() error { return e.Err }

// Name names what was left out: "mcp__SERVER__TOOL" for a tool, "mcp
// server SERVER" for a server.
func (e *RegisterError) Name() string {
	if e.Tool == "" {
		return "mcp server " + e.Server
	}
	return host.MCPToolName(e.Server, e.Tool)
}

func toolDef(server string, t *sdk.Tool) host.ToolDef {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	def := host.ToolDef{
		Name:        host.MCPToolName(server, t.Name),
		Description: desc,
		Source:      host.SourceMCP,
	}
	if t.InputSchema != nil {
		if data, err := json.Marshal(t.InputSchema); err == nil {
			def.InputSchema = data
		}
	}
	return def
}

// CallTool calls tool of server with args, a JSON object (empty or "null"
// means no arguments). A result with IsError set is the tool's own
// failure. An error is a failure to get a result: an unknown server, a
// server that is down ([ErrServerDown]), no reply within
// [BridgeOptions.CallTimeout] (wrapping [context.DeadlineExceeded]), a
// broken connection or a reply that is not MCP, or an MCP error from the
// server (an unknown tool, invalid arguments). Every such error names the
// server and the tool.
func (b *Bridge) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*host.ToolResult, error) {
	s := b.servers[server]
	if s == nil {
		return nil, fmt.Errorf("mcp: server %q: %w", server, ErrUnknownServer)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("mcp: server %q tool %q: "+format, append([]any{server, tool}, a...)...)
	}
	var arguments any
	if trimmed := strings.TrimSpace(string(args)); trimmed != "" && trimmed != "null" {
		if !json.Valid(args) || trimmed[0] != '{' {
			return nil, fail("arguments are not a JSON object")
		}
		arguments = args
	}
	sess, err := s.session(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp: server %q tool %q: %w", server, tool, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	res, err := sess.cs.CallTool(callCtx, &sdk.CallToolParams{Name: tool, Arguments: arguments})
	var wireErr *jsonrpc.Error
	switch {
	case err == nil:
		s.succeeded()
		if res == nil {
			return nil, fail("empty reply")
		}
		return b.toolResult(res), nil
	case ctx.Err() != nil:
		return nil, fail("%w", ctx.Err())
	case callCtx.Err() != nil:
		b.opts.Logger.Warn("MCP tool call timed out", "server", server, "tool", tool, "timeout", b.opts.CallTimeout)
		return nil, fail("no reply within %v: %w", b.opts.CallTimeout, context.DeadlineExceeded)
	case errors.As(err, &wireErr):
		s.succeeded() // the server answered: it is alive
		return nil, fail("server error: %w", err)
	default:
		s.broken(sess, err)
		return nil, fail("%s; it will be restarted on the next call: %w", connFailure(err), err)
	}
}

// connFailure says what err, which broke a connection, means.
func connFailure(err error) string {
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, sdk.ErrConnectionClosed):
		return "the server closed the connection (did it exit?)"
	case errors.As(err, &syntax):
		return "the server wrote something that is not JSON"
	}
	return "the connection failed"
}

// Close closes every server's connection and, for a command server, ends
// its process (closing its stdin, then signalling it). Calls after Close
// fail with [ErrBridgeClosed].
func (b *Bridge) Close() error {
	names := slices.Sorted(maps.Keys(b.servers))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = b.servers[name].close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// toolResult converts res, bounding its size.
func (b *Bridge) toolResult(res *sdk.CallToolResult) *host.ToolResult {
	limit := b.opts.MaxResult
	var sb strings.Builder
	for i, c := range res.Content {
		if sb.Len() > limit {
			break
		}
		if i > 0 {
			sb.WriteByte('\n')
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			sb.WriteString(c.Text)
		case *sdk.ImageContent:
			fmt.Fprintf(&sb, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *sdk.AudioContent:
			fmt.Fprintf(&sb, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *sdk.ResourceLink:
			fmt.Fprintf(&sb, "[resource %s]", c.URI)
		case *sdk.EmbeddedResource:
			switch {
			case c.Resource == nil:
				sb.WriteString("[resource]")
			case c.Resource.Text != "":
				sb.WriteString(c.Resource.Text)
			default:
				fmt.Fprintf(&sb, "[resource %s, %d bytes]", c.Resource.URI, len(c.Resource.Blob))
			}
		default:
			fmt.Fprintf(&sb, "[%T]", c)
		}
	}
	out := &host.ToolResult{IsError: res.IsError}
	var note string
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		switch {
		case err != nil:
			note = "\n[structured content dropped: " + err.Error() + "]"
		case len(data) > limit:
			note = fmt.Sprintf("\n[structured content dropped: %d bytes, more than the limit of %d]", len(data), limit)
		default:
			out.Structured = data
			if sb.Len() == 0 {
				sb.Write(data)
			}
		}
	}
	out.Content = truncate(sb.String(), limit) + note
	return out
}

// truncate cuts s to at most max bytes, on a rune boundary, with a note.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n[truncated: %d more bytes]", len(s)-n)
}

// A bridgeTool is a tool of a server, as a [host.Tool].
type bridgeTool struct {
	b            *Bridge
	server, tool string
	def          host.ToolDef
}

func (t *bridgeTool) Definition() host.ToolDef { return t.def }

func (t *bridgeTool) Call(ctx context.Context, input json.RawMessage) (*host.ToolResult, error) {
	res, err := t.b.CallTool(ctx, t.server, t.tool, input)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return host.ErrorResult(err.Error()), nil
	}
	return res, nil
}

// A bridgeServer is one configured server and its current session.
type bridgeServer struct {
	name string
	cfg  ServerConfig
	b    *Bridge

	// sem, a one-slot semaphore, guards the fields below; unlike a mutex,
	// waiting for it honours ctx.
	sem      chan struct{}
	sess     *bridgeSession // nil when not connected
	tools    []*sdk.Tool    // from the first successful start
	started  bool           // tools is set
	restarts int            // restarts since the last successful call
	lastErr  error          // why the last session ended or start failed
	closed   bool
}

// A bridgeSession is one connection to a server; done is closed when the
// connection is, after err is set to why.
type bridgeSession struct {
	cs   *sdk.ClientSession
	done chan struct{}
	err  error
}

func (s *bridgeServer) lock(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *bridgeServer) unlock() { <-s.sem }

func (s *bridgeServer) start(ctx context.Context) error {
	if err := s.lock(ctx); err != nil {
		return fmt.Errorf("mcp: server %q: %w", s.name, err)
	}
	defer s.unlock()
	switch {
	case s.closed:
		return fmt.Errorf("mcp: server %q: %w", s.name, ErrBridgeClosed)
	case s.sess != nil:
		return nil
	}
	sess, err := s.connect(ctx)
	if err != nil {
		s.lastErr = err
		return err
	}
	s.sess = sess
	return nil
}

// toolList returns the server's tools, or why it has none.
func (s *bridgeServer) toolList() ([]*sdk.Tool, error) {
	if err := s.lock(context.Background()); err != nil {
		return nil, err
	}
	defer s.unlock()
	if !s.started {
		return nil, fmt.Errorf("mcp: server %q not started: %w", s.name, s.lastErrOr("Start was not called"))
	}
	return s.tools, nil
}

func (s *bridgeServer) lastErrOr(msg string) error {
	if s.lastErr != nil {
		return s.lastErr
	}
	return errors.New(msg)
}

// session returns the live session, restarting the server if it has none.
func (s *bridgeServer) session(ctx context.Context) (*bridgeSession, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.unlock()
	if s.closed {
		return nil, ErrBridgeClosed
	}
	if s.sess != nil {
		select {
		case <-s.sess.done:
			s.lastErr = s.sess.err
			if s.lastErr == nil {
				s.lastErr = errors.New("the server closed the connection")
			}
			s.sess = nil
		default:
			return s.sess, nil
		}
	}
	if s.restarts >= s.b.opts.MaxRestarts {
		return nil, fmt.Errorf("%w: giving up after %d restart(s) in a row (last error: %w)", ErrServerDown, s.restarts, s.lastErrOr("none"))
	}
	s.restarts++
	s.b.opts.Logger.Warn("restarting MCP server", "server", s.name, "restart", s.restarts, "max", s.b.opts.MaxRestarts, "reason", s.lastErrOr("not started"))
	sess, err := s.connect(ctx)
	if err != nil {
		s.lastErr = err
		return nil, fmt.Errorf("restart %d of %d failed: %w", s.restarts, s.b.opts.MaxRestarts, err)
	}
	s.sess = sess
	return sess, nil
}

// succeeded notes that the server answered a call.
func (s *bridgeServer) succeeded() {
	if s.lock(context.Background()) == nil {
		s.restarts = 0
		s.unlock()
	}
}

// broken notes that sess failed with err: it is closed, and the next call
// restarts the server.
func (s *bridgeServer) broken(sess *bridgeSession, err error) {
	if s.lock(context.Background()) != nil {
		return
	}
	defer s.unlock()
	s.b.opts.Logger.Warn("MCP server connection failed", "server", s.name, "error", err)
	if s.sess == sess {
		s.sess = nil
		s.lastErr = err
	}
	go func() { _ = sess.cs.Close() }()
}

func (s *bridgeServer) close() error {
	if err := s.lock(context.Background()); err != nil {
		return err
	}
	defer s.unlock()
	s.closed = true
	sess := s.sess
	s.sess = nil
	if sess == nil {
		return nil
	}
	select {
	case <-sess.done:
		_ = sess.cs.Close() // already ended; its exit status is old news
		return nil
	default:
	}
	if err := sess.cs.Close(); err != nil {
		return fmt.Errorf("mcp: server %q: close: %w", s.name, err)
	}
	return nil
}

// connect starts a session with the server and, the first time, lists its
// tools.
func (s *bridgeServer) connect(ctx context.Context) (*bridgeSession, error) {
	if err := checkConfigServerName(s.name); err != nil {
		return nil, err
	}
	if err := s.cfg.check(s.name); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.b.opts.StartTimeout)
	defer cancel()
	cs, err := s.b.client.Connect(ctx, s.transport(), nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: server %q: start: %w", s.name, err)
	}
	sess := &bridgeSession{cs: cs, done: make(chan struct{})}
	go func() {
		sess.err = cs.Wait()
		close(sess.done)
	}()
	if !s.started {
		var tools []*sdk.Tool
		for t, err := range cs.Tools(ctx, nil) {
			if err == nil && len(tools) >= maxToolsPerServer {
				err = fmt.Errorf("more than %d tools", maxToolsPerServer)
			}
			if err != nil {
				go func() { _ = cs.Close() }()
				return nil, fmt.Errorf("mcp: server %q: listing tools: %w", s.name, err)
			}
			tools = append(tools, t)
		}
		slices.SortFunc(tools, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
		s.tools, s.started = tools, true
	}
	return sess, nil
}

func (s *bridgeServer) transport() sdk.Transport {
	if s.cfg.URL != "" {
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, DisableStandaloneSSE: true}
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Env = commandEnv(s.cfg.Env)
	if s.b.opts.Logger.Enabled(context.Background(), slog.LevelDebug) {
		cmd.Stderr = stderrLog{s.b.opts.Logger, s.name}
	}
	// A grandchild holding stderr open must not keep Wait waiting.
	cmd.WaitDelay = time.Second
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateDuration}
}

// commandEnv is the environment of a command server: PATH and HOME from
// the host, then env.
func commandEnv(env map[string]string) []string {
	var out []string
	for _, k := range []string{"PATH", "HOME"} {
		if _, set := env[k]; set {
			continue
		}
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// stderrLog logs what a command server writes to stderr.
type stderrLog struct {
	log    *slog.Logger
	server string
}

func (w stderrLog) Write(p []byte) (int, error) {
	w.log.Debug("MCP server stderr", "server", w.server, "text", truncate(strings.TrimRight(string(p), "\n"), 4096))
	return len(p), nil
}
