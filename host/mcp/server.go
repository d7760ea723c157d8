package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/skills"
)

// Names of the tools a [Server] serves for progressive disclosure: the
// catalog, and the disclosure tools every skillrun host serves
// ([host.DisclosureTools]).
const (
	catalogTool  = "skills_catalog"
	searchTool   = host.ToolSkillSearch
	activateTool = host.ToolSkillActivate
	readTool     = host.ToolSkillRead
)

// resourceScheme is the URI scheme of skill files served as resources:
// skill://<name>/<path>.
const resourceScheme = "skill"

// sessionTimeout closes a streamable HTTP session idle this long, so that
// clients that vanish do not pin memory.
const sessionTimeout = 30 * time.Minute

// ServerOptions configure a [Server]. A nil *ServerOptions means all
// defaults.
type ServerOptions struct {
	// Name and Version identify the server to clients; Name defaults to
	// "skillrun", Version to "dev".
	Name, Version string
	// Logger receives the server's log; nil means discard.
	Logger *slog.Logger
	// Tools holds every tool served beside the skill tools (core tools,
	// skill scripts, ...); nil means none. A registry tool named like a
	// skill tool, or whose input schema is not an object schema, is not
	// served (and logged).
	Tools *host.Registry
}

// HTTPOptions configure [Server.Handler]. A nil *HTTPOptions means all
// defaults.
type HTTPOptions struct {
	// AllowedHosts are the host names a request's Host header, and its
	// Origin header when present, may name: "localhost" or "[::1]" allows
	// any port, "example.com:8080" only that port. Other requests get 403
	// Forbidden, which stops DNS-rebinding attacks on a local server.
	// Empty means localhost, 127.0.0.1 and [::1] with any port.
	AllowedHosts []string
}

// A Server serves skills and the tools of a [host.Registry] over MCP (see
// the package documentation). It can serve any number of sessions at once,
// over stdio and HTTP.
//
// A Server is safe for concurrent use; [Server.SetSkills] may be called
// while sessions are being served.
type Server struct {
	srv    *mcpsdk.Server
	logger *slog.Logger
	tools  *host.Registry

	// setMu serializes SetSkills, which updates the SDK server and state.
	setMu sync.Mutex
	// regTools and resources are what the last SetSkills served; guarded
	// by setMu.
	regTools  []string
	resources []string

	mu   sync.RWMutex // guards list
	list []*skills.Skill
}

// NewServer returns a Server exposing the skills in list progressively
// and every tool of o.Tools. The registry's tools are read now and on each
// [Server.SetSkills]: call SetSkills after changing the registry.
func NewServer(list []*skills.Skill, o *ServerOptions) *Server {
	var opts ServerOptions
	if o != nil {
		opts = *o
	}
	if opts.Name == "" {
		opts.Name = "skillrun"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{logger: opts.Logger, tools: opts.Tools}
	s.srv = mcpsdk.NewServer(&mcpsdk.Implementation{Name: opts.Name, Version: opts.Version}, &mcpsdk.ServerOptions{
		Logger: opts.Logger,
		Instructions: "Skills are packages of instructions and files. Call " + catalogTool +
			" to list them (or " + searchTool + " to find one by words), " + activateTool +
			" to load one when a task matches its description, and " + readTool + " to read a file it names.",
		Capabilities: &mcpsdk.ServerCapabilities{
			Tools:     &mcpsdk.ToolCapabilities{ListChanged: true},
			Resources: &mcpsdk.ResourceCapabilities{ListChanged: true},
		},
	})
	s.srv.AddTool(&mcpsdk.Tool{
		Name:        catalogTool,
		Description: "List the available skills: the name, description and location of each, as an <available_skills> block.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: true},
	}, s.guard(s.catalog))
	s.SetSkills(list)
	return s
}

// SetSkills replaces the skills served, and rereads the registry's tools.
// Clients are sent notifications/tools/list_changed and
// notifications/resources/list_changed. Of two skills with the same name,
// the first is served.
func (s *Server) SetSkills(list []*skills.Skill) {
	s.setMu.Lock()
	defer s.setMu.Unlock()

	byName := make(map[string]*skills.Skill, len(list))
	var kept []*skills.Skill
	for _, sk := range list {
		if sk == nil {
			continue
		}
		if _, dup := byName[sk.Name]; dup {
			s.logger.Warn("mcp: duplicate skill name; serving the first", "skill", sk.Name, "location", sk.Location)
			continue
		}
		byName[sk.Name] = sk
		kept = append(kept, sk)
	}
	s.mu.Lock()
	s.list = kept
	s.mu.Unlock()

	// Resources: one per file of each skill.
	var uris []string
	for _, sk := range kept {
		act, err := sk.Activate()
		if err != nil {
			s.logger.Warn("mcp: skill files not served", "skill", sk.Name, "error", err)
			continue
		}
		for _, f := range act.Files {
			uri := resourceURI(sk.Name, f)
			s.srv.AddResource(&mcpsdk.Resource{
				URI:      uri,
				Name:     sk.Name + "/" + f,
				MIMEType: mimeType(f),
			}, s.resourceHandler(sk, f))
			uris = append(uris, uri)
		}
	}
	if stale := without(s.resources, uris); len(stale) > 0 {
		s.srv.RemoveResources(stale...)
	}
	s.resources = uris

	// The disclosure tools, over the skills kept; their schemas list the
	// skill names.
	for _, t := range host.DisclosureTools(kept, &host.DisclosureOptions{EnumNames: true, ResourceURI: resourceURI}) {
		st, err := toSDK(t.Definition())
		if err != nil {
			s.logger.Error("mcp: disclosure tool not served", "tool", t.Definition().Name, "error", err)
			continue
		}
		st.Annotations = &mcpsdk.ToolAnnotations{ReadOnlyHint: true}
		s.srv.AddTool(st, s.guard(s.toolHandler(t)))
	}

	// Registry tools.
	var served []string
	if s.tools != nil {
		for _, def := range s.tools.List() {
			t, err := sdkTool(def)
			if err != nil {
				s.logger.Warn("mcp: registry tool not served", "tool", def.Name, "error", err)
				continue
			}
			s.srv.AddTool(t, s.guard(s.callRegistry))
			served = append(served, def.Name)
		}
	}
	if stale := without(s.regTools, served); len(stale) > 0 {
		s.srv.RemoveTools(stale...)
	}
	s.regTools = served
}

// ServeStdio serves one session over in and out with newline-delimited
// JSON-RPC (the MCP stdio transport), until the client disconnects or ctx
// is done. If in is an [io.Closer] it is closed when serving ends; out is
// not closed.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	err := s.srv.Run(ctx, &mcpsdk.IOTransport{Reader: rc, Writer: nopWriteCloser{out}})
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Handler returns an http.Handler serving MCP's streamable HTTP transport,
// with a session per client (idle sessions end after 30 minutes). It
// answers 403 Forbidden to a request whose Host, or Origin when present,
// is not allowed by o.AllowedHosts.
func (s *Server) Handler(o *HTTPOptions) http.Handler {
	allowed := []string{"localhost", "127.0.0.1", "[::1]"}
	if o != nil && len(o.AllowedHosts) > 0 {
		allowed = slices.Clone(o.AllowedHosts)
	}
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s.srv }, &mcpsdk.StreamableHTTPOptions{
		Logger:         s.logger,
		SessionTimeout: sessionTimeout,
		// hostAllowed below is stricter than the SDK's check, which only
		// applies to connections to a loopback address, and the SDK's would
		// refuse a name the caller allowed.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(allowed, r.Host) {
			s.logger.Warn("mcp: request refused: host not allowed", "host", r.Host)
			http.Error(w, "Forbidden: host not allowed", http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			u, err := url.Parse(origin)
			if err != nil || u.Host == "" || !hostAllowed(allowed, u.Host) {
				s.logger.Warn("mcp: request refused: origin not allowed", "origin", origin)
				http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether hostport (a Host header or an Origin's host)
// matches an entry of allowed: by host name alone for an entry without a
// port, by host name and port otherwise.
func hostAllowed(allowed []string, hostport string) bool {
	if hostport == "" {
		return false
	}
	host, port := splitHost(hostport)
	for _, a := range allowed {
		ah, ap := splitHost(a)
		if ah == host && (ap == "" || ap == port) {
			return true
		}
	}
	return false
}

// splitHost splits "host:port", "[v6]:port", "[v6]", "v6" or "host" into a
// lower-case host without brackets and a port, which may be "".
func splitHost(s string) (host, port string) {
	s = strings.ToLower(strings.TrimSpace(s))
	if h, p, err := net.SplitHostPort(s); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), ""
}

// guard wraps a tool handler so that a panic becomes an error result:
// a failing tool never brings the server down.
func (s *Server) guard(h mcpsdk.ToolHandler) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (res *mcpsdk.CallToolResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.logger.Error("mcp: tool panicked", "tool", req.Params.Name, "panic", v)
				res, err = errorResult(fmt.Sprintf("internal error: tool %s panicked: %v", req.Params.Name, v)), nil
			}
		}()
		return h(ctx, req)
	}
}

func (s *Server) catalog(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
	m, msg := args(req.Params.Arguments)
	if msg != "" {
		return errorResult(catalogTool + ": " + msg), nil
	}
	if len(m) > 0 {
		k := slices.Sorted(maps.Keys(m))[0]
		return errorResult(fmt.Sprintf("%s: unknown argument %q (it takes none)", catalogTool, k)), nil
	}
	s.mu.RLock()
	list := s.list
	s.mu.RUnlock()
	return textResult(skills.Prompt(list)), nil
}

// args decodes tool arguments as a JSON object; absent arguments are {}.
func args(raw json.RawMessage) (map[string]json.RawMessage, string) {
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return m, ""
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, "arguments must be a JSON object"
	}
	return m, ""
}

func (s *Server) callRegistry(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
	res, err := s.tools.Call(ctx, req.Params.Name, req.Params.Arguments)
	if err != nil {
		s.logger.Error("mcp: tool call failed", "tool", req.Params.Name, "error", err)
		return errorResult("internal error: " + err.Error()), nil
	}
	return callResult(res), nil
}

// toolHandler serves t as an MCP tool; a failure of the host is logged
// and given to the client as an error result, as callRegistry does.
func (s *Server) toolHandler(t host.Tool) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		res, err := t.Call(ctx, req.Params.Arguments)
		if err != nil {
			s.logger.Error("mcp: tool call failed", "tool", req.Params.Name, "error", err)
			return errorResult("internal error: " + err.Error()), nil
		}
		return callResult(res), nil
	}
}

// callResult is res as an MCP tool result.
func callResult(res *host.ToolResult) *mcpsdk.CallToolResult {
	out := &mcpsdk.CallToolResult{
		Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: res.Content}},
		IsError: res.IsError,
	}
	if len(res.Structured) > 0 {
		out.StructuredContent = res.Structured
	}
	return out
}

func (s *Server) resourceHandler(sk *skills.Skill, file string) mcpsdk.ResourceHandler {
	return func(_ context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
		uri := req.Params.URI
		data, err := sk.ReadResource(file)
		if err != nil {
			s.logger.Warn("mcp: resource not read", "uri", uri, "error", err)
			return nil, mcpsdk.ResourceNotFoundError(uri)
		}
		c := &mcpsdk.ResourceContents{URI: uri, MIMEType: mimeType(file)}
		if strings.HasPrefix(c.MIMEType, "text/") && utf8.Valid(data) {
			c.Text = string(data)
		} else {
			c.MIMEType, c.Blob = "application/octet-stream", data
		}
		return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{c}}, nil
	}
}

// resourceURI returns skill://<name>/<file>, escaped as a URL.
func resourceURI(name, file string) string {
	u := url.URL{Scheme: resourceScheme, Host: name, Path: "/" + file}
	return u.String()
}

// textExts are extensions of files served as text/plain.
var textExts = []string{
	"", ".txt", ".text", ".py", ".sh", ".bash", ".js", ".mjs", ".ts", ".go", ".rs", ".c", ".h", ".cc", ".cpp",
	".java", ".rb", ".pl", ".lua", ".sql", ".json", ".jsonl", ".toml", ".yaml", ".yml", ".xml", ".html",
	".css", ".csv", ".tsv", ".ini", ".cfg", ".conf", ".rst", ".tex", ".svg", ".wat", ".mod", ".sum",
}

// mimeType is the type a file is served as: text/markdown for Markdown,
// text/plain for common text formats, else application/octet-stream.
func mimeType(file string) string {
	switch ext := strings.ToLower(path.Ext(file)); {
	case ext == ".md" || ext == ".markdown":
		return "text/markdown"
	case slices.Contains(textExts, ext):
		return "text/plain"
	}
	return "application/octet-stream"
}

// sdkTool converts a registry definition, refusing names the skill tools
// use and input schemas that do not describe an object.
func sdkTool(def host.ToolDef) (*mcpsdk.Tool, error) {
	switch def.Name {
	case catalogTool, searchTool, activateTool, readTool:
		return nil, errors.New("the name is a skill tool's")
	}
	return toSDK(def)
}

// toSDK converts a tool definition, refusing input schemas that do not
// describe an object.
func toSDK(def host.ToolDef) (*mcpsdk.Tool, error) {
	schema := map[string]any{}
	if len(bytes.TrimSpace(def.InputSchema)) > 0 && string(bytes.TrimSpace(def.InputSchema)) != "null" {
		if err := json.Unmarshal(def.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("input schema is not a JSON object: %w", err)
		}
	}
	switch t := schema["type"]; t {
	case nil:
		schema["type"] = "object"
	case "object":
	default:
		return nil, fmt.Errorf(`input schema has type %v, not "object"`, t)
	}
	t := &mcpsdk.Tool{Name: def.Name, Description: def.Description, InputSchema: schema}
	if len(bytes.TrimSpace(def.OutputSchema)) > 0 && string(bytes.TrimSpace(def.OutputSchema)) != "null" {
		t.OutputSchema = def.OutputSchema
	}
	return t, nil
}

func textResult(text string) *mcpsdk.CallToolResult {
	return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: text}}}
}

func errorResult(msg string) *mcpsdk.CallToolResult {
	r := textResult(msg)
	r.IsError = true
	return r
}

// without returns the elements of old not in cur.
func without(old, cur []string) []string {
	keep := make(map[string]bool, len(cur))
	for _, x := range cur {
		keep[x] = true
	}
	var out []string
	for _, x := range old {
		if !keep[x] {
			out = append(out, x)
		}
	}
	return out
}
