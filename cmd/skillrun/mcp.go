package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

func newMCPCmd() *cobra.Command {
	var (
		httpAddr  string
		workspace string
		policy    string
		mcpConfig string
		limits    runLimitFlags
		tokenFile string
		noAuth    bool
	)
	cmd := &cobra.Command{
		Use:   "mcp [PATH...]",
		Short: "Serve skills to any MCP client (stdio, or streamable HTTP with --http)",
		Long: `Mcp serves the skills at PATH (or the default skill folders) over the Model
Context Protocol: the catalog, activation and every file as tools and
resources (skill://NAME/PATH), and every script as a tool with its schema.

Scripts run sandboxed with what --policy grants them (nothing by default);
an MCP client never widens a grant. With --http ADDR the server speaks
streamable HTTP, bound to ADDR (loopback unless ADDR says otherwise), and
refuses requests whose Host or Origin is not that address, and answers
only requests that carry Authorization: Bearer TOKEN (any local user can
reach a loopback address). The token is read from --token-file (default:
skillrun/mcp-token in the user's config folder), which must be readable
by its owner only; when there is no such file, a new random token is
written there (mode 0600). Give its content to the MCP client. --no-auth
serves without a token, for a reverse proxy that authenticates.

Tool calls run side by side, at most --max-runs at once and within
--max-run-memory of memory limits together; a call that finds no room
waits its turn, first come first served, for at most --max-run-wait,
then fails with an error that says what is in use.`,
		Example: `  skillrun mcp examples --policy policy.toml --workspace .
  skillrun mcp --http 127.0.0.1:8765 examples`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if httpAddr == "" && (tokenFile != "" || noAuth) {
				return usageErr("--token-file and --no-auth apply to --http only")
			}
			if tokenFile != "" && noAuth {
				return usageErr("--token-file and --no-auth exclude each other: --no-auth serves without a token")
			}
			found, err := discoverArgs(cmd, args)
			if err != nil {
				return err
			}
			var pol *capabilities.Policy
			if policy != "" {
				if pol, err = capabilities.LoadPolicy(policy); err != nil {
					return usageErr("--policy: %v", err)
				}
			}
			stderr := cmd.ErrOrStderr()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			opts := &scripts.Options{Interpreters: runInterpreters(stderr), Progress: stderr}
			if err := limits.apply(opts); err != nil {
				return err
			}
			rt, err := scripts.New(ctx, opts)
			if err != nil {
				return &exitError{code: exitSandbox, err: err}
			}
			defer func() { _ = rt.Close(context.WithoutCancel(ctx)) }()

			servers, err := readMCPConfig(mcpConfig)
			if err != nil {
				return err
			}
			// What the policy grants each skill (bound to it by identity,
			// again at each reload: a skill that appears later claiming a
			// granted name gets no grant) and the workspace to the shell
			// and Markdown skills' steps; the native tier for a skill whose
			// own policy table trusts it with it.
			res := &capabilities.Resolver{Policy: pol}
			set, err := toolset.New(ctx, found.Catalog, &toolset.Config{Runner: rt,
				Workspace: workspace, WorkspaceGrant: res.Workspace(),
				Grant: toolset.Resolve(res, stderr), Native: policyNative(pol, stderr),
				MCPServers: servers, Warn: stderr, Server: true})
			if err != nil {
				return usageErr("%v", err)
			}
			defer func() { _ = set.Close() }()
			logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			srv := mcp.NewServer(set.Skills(), &mcp.ServerOptions{Name: "skillrun", Version: "0", Logger: logger, Tools: set.Served()})

			// Hot reload: when a skill folder changes on disk, load the
			// skills again; clients get tools/list_changed and
			// resources/list_changed. A Markdown skill's open
			// conversations end with its old runner.
			go watchSkills(ctx, found.Roots, reloadEvery, func() {
				c := toolset.Discover(found.Roots, stderr)
				reportReload(stderr, c.Discovery)
				set.Reload(c)
				srv.SetSkills(c.Skills())
			})
			if httpAddr == "" {
				return srv.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
			}
			return serveHTTP(ctx, stderr, logger, srv, &httpServe{addr: httpAddr, tokenFile: tokenFile, noAuth: noAuth})
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765; a bare :PORT binds loopback)")
	cmd.Flags().StringVar(&workspace, "workspace", ".", "the host `DIR` scripts see at /workspace (as granted)")
	cmd.Flags().StringVar(&policy, "policy", "", "operator policy `FILE` granting capabilities per skill")
	cmd.Flags().StringVar(&mcpConfig, "mcp-config", "", "an mcpServers JSON `FILE`: bridge those servers' tools, served as mcp__SERVER__TOOL")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "with --http, the bearer token `FILE` clients must send (default skillrun/mcp-token in the user config folder; made, mode 0600, when missing)")
	cmd.Flags().BoolVar(&noAuth, "no-auth", false, "with --http, serve without a bearer token (only behind a reverse proxy that authenticates)")
	addRunLimitFlags(cmd.Flags(), &limits)
	return cmd
}

// reportReload logs what a hot reload found wrong: a name collision is an
// error (the grants of that name go to no skill until it is resolved),
// other problems are warnings, skills that fail to load are errors.
// Everything is escaped: it comes from the skill folders.
func reportReload(w io.Writer, d *skills.Discovery) {
	for _, p := range d.Problems {
		level := "warning"
		if p.Code == "name-collision" {
			level = "error"
		}
		fmt.Fprintf(w, "skillrun: reload: %s: %s\n", level, p.Error())
	}
	for _, f := range d.Failed {
		fmt.Fprintf(w, "skillrun: reload: error: %s: skipped: %s\n", termsafe.String(f.Dir), termsafe.String(f.Error()))
	}
}

// httpServe is how `skillrun mcp --http` serves: the address, and the
// bearer token file (empty: the default one) or no authentication.
type httpServe struct {
	addr      string
	tokenFile string
	noAuth    bool
}

// serveHTTP binds o.addr (a bare ":PORT" means loopback) and serves until
// ctx ends, allowing only requests addressed to the bound host and, unless
// o.noAuth, carrying the bearer token (see mcphttp.go). Connections,
// headers, bodies and idle time are bounded.
func serveHTTP(ctx context.Context, stderr io.Writer, logger *slog.Logger, srv *mcp.Server, o *httpServe) error {
	h, port, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usageErr("--http %s: %v", o.addr, err)
	}
	if h == "" {
		h = "127.0.0.1"
	}
	var token string
	if !o.noAuth {
		path := o.tokenFile
		if path == "" {
			if path, err = defaultTokenFile(); err != nil {
				return usageErr("--http: %v", err)
			}
		}
		var created bool
		if token, created, err = loadOrCreateToken(path); err != nil {
			return usageErr("--http: %v", err)
		}
		if created {
			fmt.Fprintf(stderr, "skillrun: wrote a new MCP bearer token to %s (mode 0600)\n", path)
		}
		fmt.Fprintf(stderr, "skillrun: MCP clients must send Authorization: Bearer TOKEN, TOKEN the content of %s\n", path)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(h, port))
	if err != nil {
		return usageErr("--http %s: %v", o.addr, err)
	}
	bound := ln.Addr().String()
	allowed := []string{bound}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		_, p, _ := net.SplitHostPort(bound)
		allowed = append(allowed, "localhost:"+p)
	}
	handler := boundBody(srv.Handler(&mcp.HTTPOptions{AllowedHosts: allowed}))
	if o.noAuth {
		fmt.Fprintf(stderr, "skillrun: warning: --no-auth: anyone who can reach %s, any local user included, can call every tool with your grants; use it only behind a reverse proxy that authenticates\n", bound)
	} else {
		handler = requireBearer(token, &refusalLog{logger: logger}, handler)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: httpHeaderTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
	}
	fmt.Fprintf(stderr, "skillrun: serving MCP on http://%s\n", bound)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(newLimitListener(ln, httpMaxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// reloadEvery is how often `skillrun mcp` looks for changed skill folders.
const reloadEvery = 2 * time.Second

// watchSkills calls reload whenever the files under roots change (name,
// size or modification time), checking every interval until ctx ends.
// Polling keeps it portable and dependency-free; the walk is bounded.
func watchSkills(ctx context.Context, roots []skills.Root, interval time.Duration, reload func()) {
	last := fingerprint(roots)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if fp := fingerprint(roots); fp != last {
				last = fp
				reload()
			}
		}
	}
}

// maxWatchEntries bounds one fingerprint walk.
const maxWatchEntries = 20000

func fingerprint(roots []skills.Root) string {
	h := sha256.New()
	n := 0
	for _, r := range roots {
		_ = filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil //nolint:nilerr // an unreadable entry is left out of the fingerprint
			}
			if n++; n > maxWatchEntries {
				return fs.SkipAll
			}
			if d.IsDir() && p != r.Dir && (strings.HasPrefix(d.Name(), ".") && d.Name() != mdskill.Folder || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
			}
			return nil
		})
		// The Markdown skills' folder may be a symbolic link, which the
		// walk does not follow.
		md := filepath.Join(r.Dir, mdskill.Folder)
		if entries, err := os.ReadDir(md); err == nil {
			for _, e := range entries {
				if n++; n > maxWatchEntries {
					break
				}
				if fi, err := os.Stat(filepath.Join(md, e.Name())); err == nil {
					fmt.Fprintf(h, "%s\x00%d\x00%d\n", filepath.Join(md, e.Name()), fi.Size(), fi.ModTime().UnixNano())
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
