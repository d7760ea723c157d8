package scripts

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
)

// runTools returns what the tool_call of one script run reaches: the
// workspace tools ([host.IsWorkspaceTool]) built over workspace and the
// run's own effective grant eff, with the protected folders kept
// unchangeable, and every other tool from outer.
//
// Why: a workspace tool is a second door to the workspace, so it must
// open only what the script's own mounts open. The caller's registry (a
// session's, an MCP server's) holds workspace tools built over the
// caller's grant, which is wider; a script that reached them would read
// and write what its skill never declared. So those names never go to
// outer. With no workspace (or one that is not a folder) they are unknown
// to the script, not borrowed. nil outer serves no other tools.
//
// outer may itself be a run's tools (a script run by a script's tool
// call): then its own outer is used, never its workspace tools.
func runTools(workspace string, eff capabilities.Set, outer host.ToolCaller, protected []string) host.ToolCaller {
	if st, ok := outer.(*scriptTools); ok {
		outer = st.outer
	}
	t := &scriptTools{outer: outer}
	if workspace == "" {
		return t
	}
	core, err := host.CoreTools(workspace, eff, protected...)
	if err != nil {
		return t // the run's mounts fail on the same folder and say why
	}
	t.core = host.NewRegistry()
	for _, c := range core {
		if err := t.core.Add(c); err != nil {
			panic(fmt.Sprintf("scripts: core tool %s: %v", c.Definition().Name, err)) // host's own tools: a programmer error
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
	if host.IsWorkspaceTool(name) { // only the run's own
		if t.core == nil {
			return nil, fmt.Errorf("tool %q: no workspace in this run: %w", name, host.ErrUnknownTool)
		}
		return t.core.Call(ctx, name, input)
	}
	if t.outer == nil {
		return nil, fmt.Errorf("tool %q: this run reaches no tools beside the workspace ones: %w", name, host.ErrUnknownTool)
	}
	return t.outer.Call(ctx, name, input)
}
