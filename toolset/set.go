package toolset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// Config says how a [Set] serves its catalog: what runs the scripts,
// what the operator grants, which MCP servers and which tier.
type Config struct {
	// Runner runs every script (required).
	Runner *scripts.Runner
	// Workspace is the host folder the scripts and tools see (as
	// granted); "" for none: no core tools, no shell tool.
	Workspace string
	// WorkspaceGrant is what the operator grants over the workspace to
	// the tools that act for it rather than for a skill: the core
	// workspace tools, the shell tool and Markdown skills' steps
	// (capabilities.Resolver.Workspace). No read of it: no shell tool.
	WorkspaceGrant capabilities.Set
	// WorkspaceAt, if set, is a second place the shell tool shows the
	// workspace and starts in (a benchmark task's /app).
	WorkspaceAt string
	// Grant is what the operator grants a skill's scripts, the one
	// resolution every front end uses ([Resolve] makes it from a
	// capabilities.Resolver). A YAML tool module is granted as the skill
	// its ScriptSkill is. Nil grants nothing: deny by default.
	Grant func(*skills.Skill) (capabilities.Set, error)
	// Native says which skills' source scripts run as confined host
	// processes (the native tier); nil: none.
	Native func(*skills.Skill) *scripts.NativeTier
	// MCPServers are started and bridged: their tools join the set as
	// mcp__SERVER__TOOL, and scripts reach them with mcp_call.
	MCPServers map[string]mcp.ServerConfig
	// Auditor receives every capability use and denial of the scripts
	// (nil: the call context's auditor).
	Auditor audit.Auditor
	// Warn receives, escaped, what is left out and why (nil: discarded).
	Warn io.Writer
	// Server says the set is for a server ([Set.Served]): its Tools then
	// hold only the core workspace tools, and what is left out is said
	// as left out of the server rather than of the session.
	Server bool
}

// A Set is a catalog made into tools. Close it to stop its MCP servers.
type Set struct {
	cfg     Config
	catalog *Catalog
	// Tools are the tools a session offers beside its own: the core
	// workspace tools, the bridged MCP servers' tools, the Markdown
	// skills and the YAML tool actions.
	Tools *host.Registry
	// Skipped are the tools and servers left out because they are
	// broken (a server that did not start, a name refused): a session
	// records each.
	Skipped []agent.Skip

	core   []host.Tool
	ws     *host.Workspace
	bridge *mcp.Bridge

	mu     sync.Mutex
	grants map[string]capabilities.Set // by skill name, of the catalog's skills
	served *host.Registry              // Served's registry, once made

	servedOnce sync.Once
}

// New makes the tools of catalog. An MCP server that does not start, or
// a tool that cannot be served, is left out (Skipped, and said on Warn);
// the error is for what the caller must fix: a skill whose grant cannot
// be resolved, a workspace that is not a folder.
func New(ctx context.Context, catalog *Catalog, cfg *Config) (*Set, error) {
	if cfg.Runner == nil {
		return nil, errors.New("toolset: no runner")
	}
	s := &Set{cfg: *cfg, catalog: catalog, Tools: host.NewRegistry()}
	if s.cfg.Warn == nil {
		s.cfg.Warn = io.Discard
	}
	grants, err := s.resolve(catalog, true)
	if err != nil {
		return nil, err
	}
	s.grants = grants
	protected := s.cfg.Runner.ProtectedDirs(catalog.protected()...)
	if s.cfg.Workspace != "" {
		if s.core, err = host.CoreTools(s.cfg.Workspace, s.cfg.WorkspaceGrant, protected...); err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
		if s.ws, err = host.NewWorkspace(s.cfg.Workspace, s.cfg.WorkspaceGrant, protected...); err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
	}
	for _, t := range s.core {
		if err := s.Tools.Add(t); err != nil {
			return nil, err
		}
	}
	if len(s.cfg.MCPServers) > 0 {
		s.bridge = mcp.NewBridge(s.cfg.MCPServers, nil)
		if err := s.bridge.Start(ctx); err != nil {
			s.warn("%v", err)
		}
	}
	if s.cfg.Server {
		return s, nil
	}
	if s.bridge != nil {
		s.addBridge(s.Tools)
	}
	s.addMarkdown(s.Tools, catalog)
	if err := s.addYAML(s.Tools, catalog, true); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// Resolve is the grant r gives each skill, for [Config.Grant]: what the
// whole skill declares (scripts.Resolve) under the policy, flags and
// limits of r. A policy table by the skill's name that is not the
// skill's is said on warn as an error (the skill gets the [default]).
func Resolve(r *capabilities.Resolver, warn io.Writer) func(*skills.Skill) (capabilities.Set, error) {
	return func(s *skills.Skill) (capabilities.Set, error) {
		res, err := scripts.Resolve(s, "", r)
		if err != nil {
			return capabilities.Set{}, fmt.Errorf("skill %s: %w", s.Name, err)
		}
		if res.Unbound != nil && warn != nil {
			fmt.Fprintf(warn, "skillrun: error: %s\n", termsafe.String(res.Unbound.Error()))
		}
		return res.Granted, nil
	}
}

// resolve grants each skill of c. strict: a skill whose grant cannot be
// resolved is an error; otherwise it is said and granted nothing (a
// reload must not stop a server).
func (s *Set) resolve(c *Catalog, strict bool) (map[string]capabilities.Set, error) {
	grants := map[string]capabilities.Set{}
	if s.cfg.Grant == nil {
		return grants, nil
	}
	for _, sk := range c.Skills() {
		g, err := s.cfg.Grant(sk)
		if err != nil {
			if strict {
				return nil, err
			}
			s.warn("%v", err)
			continue
		}
		grants[sk.Name] = g
	}
	return grants, nil
}

// Catalog is what the set serves.
func (s *Set) Catalog() *Catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.catalog
}

// Skills are the skills the set discloses ([Catalog.Skills]).
func (s *Set) Skills() []*skills.Skill { return s.Catalog().Skills() }

// Grant is what the operator grants skill's scripts (the zero Set for a
// name no skill of the set has).
func (s *Set) Grant(skill string) capabilities.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grants[skill]
}

// mcpCaller serves scripts' mcp_call: the bridged servers (nil: none).
func (s *Set) mcpCaller() host.MCPCaller {
	if s.bridge == nil {
		return nil
	}
	return s.bridge
}

// Close stops the MCP servers.
func (s *Set) Close() error {
	if s.bridge == nil {
		return nil
	}
	return s.bridge.Close()
}

// services are what the set's script runs reach beyond their sandbox.
func (s *Set) services(tools host.ToolCaller) host.Services {
	return host.Services{Workspace: s.cfg.Workspace, Auditor: s.cfg.Auditor, MCP: s.mcpCaller(), Tools: tools}
}

// warn says something left out, escaped: it quotes strangers' names.
func (s *Set) warn(format string, args ...any) {
	fmt.Fprintf(s.cfg.Warn, "skillrun: %s\n", termsafe.String(fmt.Sprintf(format, args...)))
}

// addBridge adds the bridged servers' tools to reg; each server or tool
// left out is said and skipped. Why not fail: one broken server or tool
// in a repository's MCP config would otherwise keep every session
// started there from starting.
func (s *Set) addBridge(reg *host.Registry) {
	err := s.bridge.Register(reg)
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		name := "mcp"
		if re, ok := errors.AsType[*mcp.RegisterError](e); ok {
			name = re.Name()
		}
		of := "session"
		if s.cfg.Server {
			of = "server"
		}
		s.warn("left out of the %s: %s", of, agent.Truncate(e.Error(), 1024))
		s.Skipped = append(s.Skipped, agent.Skip{Name: name, Reason: e.Error()})
	}
}
