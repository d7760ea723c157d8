package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
	"github.com/skillrun/skillrun/toolset"
)

// mcpFlags are the flags of `skillrun mcp`.
type mcpFlags struct {
	httpAddr  string
	workspace string
	policy    string
	mcpConfig string
	limits    runLimitFlags
	tokenFile string
	noAuth    bool
}

func newMCPCmd() *cobra.Command {
	var f mcpFlags
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
			return runMCP(cmd, &f, args)
		},
	}
	cmd.Flags().StringVar(&f.httpAddr, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765; a bare :PORT binds loopback)")
	cmd.Flags().StringVar(&f.workspace, "workspace", ".", "the host `DIR` scripts see at /workspace (as granted)")
	cmd.Flags().StringVar(&f.policy, "policy", "", "operator policy `FILE` granting capabilities per skill")
	cmd.Flags().StringVar(&f.mcpConfig, "mcp-config", "", "an mcpServers JSON `FILE`: bridge those servers' tools, served as mcp__SERVER__TOOL")
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", "with --http, the bearer token `FILE` clients must send (default skillrun/mcp-token in the user config folder; made, mode 0600, when missing)")
	cmd.Flags().BoolVar(&f.noAuth, "no-auth", false, "with --http, serve without a bearer token (only behind a reverse proxy that authenticates)")
	addRunLimitFlags(cmd.Flags(), &f.limits)
	return cmd
}

// runMCP serves the skills of args (package toolset) over stdio, or
// over HTTP with --http, until the client or an interrupt ends it.
func runMCP(cmd *cobra.Command, f *mcpFlags, args []string) error {
	if f.httpAddr == "" && (f.tokenFile != "" || f.noAuth) {
		return usageErr("--token-file and --no-auth apply to --http only")
	}
	if f.tokenFile != "" && f.noAuth {
		return usageErr("--token-file and --no-auth exclude each other: --no-auth serves without a token")
	}
	found, err := discoverArgs(cmd, args)
	if err != nil {
		return err
	}
	var pol *capabilities.Policy
	if f.policy != "" {
		if pol, err = capabilities.LoadPolicy(f.policy); err != nil {
			return usageErr("--policy: %v", err)
		}
	}
	servers, err := readMCPConfig(f.mcpConfig)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	rt, err := f.limits.newRunner(ctx, &scripts.Options{Interpreters: runInterpreters(stderr), Progress: stderr})
	if err != nil {
		return err
	}
	defer func() { _ = rt.Close(context.WithoutCancel(ctx)) }()
	// What the policy grants each skill (bound to it by identity,
	// again at each reload: a skill that appears later claiming a
	// granted name gets no grant) and the workspace to the shell
	// and Markdown skills' steps; the native tier for a skill whose
	// own policy table trusts it with it.
	res := &capabilities.Resolver{Policy: pol}
	set, err := toolset.New(ctx, found.Catalog, &toolset.Config{Runner: rt,
		Workspace: f.workspace, WorkspaceGrant: res.Workspace(),
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
	go set.Watch(ctx, reloadEvery, func(c *toolset.Catalog) {
		reportReload(stderr, c.Discovery)
		srv.SetSkills(c.Skills())
	})
	if f.httpAddr == "" {
		return srv.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
	}
	if err := srv.ListenAndServe(ctx, &mcp.ListenOptions{Addr: f.httpAddr, TokenFile: f.tokenFile, NoAuth: f.noAuth, Notice: stderr, Logger: logger}); err != nil {
		return usageErr("--http: %v", err)
	}
	return nil
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

// reloadEvery is how often `skillrun mcp` looks for changed skill folders.
const reloadEvery = 2 * time.Second
