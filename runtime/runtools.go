package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
)

// runTools returns what the tool_call of one script run reaches: the core
// workspace tools (bare names) built over workspace and the run's own
// effective grant eff, and every namespaced tool ("mcp__…") from outer.
//
// Why: a core tool is a second door to the workspace, so it must open
// only what the script's own mounts open. The caller's registry (a
// session's, an MCP server's) holds core tools built over the caller's
// grant, which is wider; a script that reached them would read and write
// what its skill never declared. So a bare name never goes to outer.
// With no workspace (or one that is not a folder) the core tools are
// unknown to the script, not borrowed. nil outer serves no namespaced
// tools.
func runTools(workspace string, eff capabilities.Set, outer host.ToolCaller) host.ToolCaller {
	t := &scriptTools{outer: outer}
	if workspace == "" {
		return t
	}
	core, err := host.CoreTools(workspace, eff)
	if err != nil {
		return t // the run's mounts fail on the same folder and say why
	}
	t.core = host.NewRegistry()
	for _, c := range core {
		if err := t.core.Add(c); err != nil {
			panic(fmt.Sprintf("runtime: core tool %s: %v", c.Definition().Name, err)) // host's own tools: a programmer error
		}
	}
	return t
}

// scriptTools is the [host.ToolCaller] runTools returns.
type scriptTools struct {
	core  *host.Registry // nil: no workspace
	outer host.ToolCaller
}

func (t *scriptTools) Call(ctx context.Context, name string, input json.RawMessage) (*host.ToolResult, error) {
	if !strings.Contains(name, "__") { // a core tool: only the run's own
		if t.core == nil {
			return nil, fmt.Errorf("tool %q: no workspace in this run: %w", name, host.ErrUnknownTool)
		}
		return t.core.Call(ctx, name, input)
	}
	if t.outer == nil {
		return nil, fmt.Errorf("tool %q: this run reaches no tools beside the core ones: %w", name, host.ErrUnknownTool)
	}
	return t.outer.Call(ctx, name, input)
}
