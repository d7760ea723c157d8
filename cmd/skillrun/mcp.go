package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/runtime"
	"github.com/spf13/cobra"
)

func newMCPCmd() *cobra.Command {
	var (
		httpAddr  string
		workspace string
		policy    string
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
refuses requests whose Host or Origin is not that address.`,
		Example: `  skillrun mcp examples --policy policy.toml --workspace .
  skillrun mcp --http 127.0.0.1:8765 examples`,
		RunE: func(cmd *cobra.Command, args []string) error {
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
			grantFor := func(skill string) capabilities.Set {
				if pol == nil {
					return capabilities.Set{}
				}
				return pol.For(skill)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			rt, err := runtime.New(ctx, nil)
			if err != nil {
				return &exitError{code: exitSandbox, err: err}
			}
			defer func() { _ = rt.Close(context.WithoutCancel(ctx)) }()

			reg := host.NewRegistry()
			for _, s := range found.Skills {
				if s.Manifest == nil {
					continue
				}
				for _, name := range s.Manifest.ScriptNames() {
					if err := reg.Add(runtime.ScriptTool(rt, s, name, grantFor(s.Name), workspace)); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "skillrun: %s:%s not served: %v\n", s.Name, name, err)
					}
				}
			}
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			srv := mcp.NewServer(found.Skills, &mcp.ServerOptions{Name: "skillrun", Version: "0", Logger: logger, Tools: reg})
			if httpAddr == "" {
				return srv.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
			}
			return serveHTTP(ctx, cmd, srv, httpAddr)
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8765; a bare :PORT binds loopback)")
	cmd.Flags().StringVar(&workspace, "workspace", ".", "the host `DIR` scripts see at /workspace (as granted)")
	cmd.Flags().StringVar(&policy, "policy", "", "operator policy `FILE` granting capabilities per skill")
	return cmd
}

// serveHTTP binds addr (a bare ":PORT" means loopback) and serves until
// ctx ends, allowing only requests addressed to the bound host.
func serveHTTP(ctx context.Context, cmd *cobra.Command, srv *mcp.Server, addr string) error {
	h, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErr("--http %s: %v", addr, err)
	}
	if h == "" {
		h = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(h, port))
	if err != nil {
		return usageErr("--http %s: %v", addr, err)
	}
	bound := ln.Addr().String()
	allowed := []string{bound}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		_, p, _ := net.SplitHostPort(bound)
		allowed = append(allowed, "localhost:"+p)
	}
	hs := &http.Server{Handler: srv.Handler(&mcp.HTTPOptions{AllowedHosts: allowed}), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(cmd.ErrOrStderr(), "skillrun: serving MCP on http://%s\n", bound)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
