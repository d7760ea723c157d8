package run

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/mdskill"
)

// A stepResult is one step's outcome, as the result lists them.
type stepResult struct {
	Step    int             `json:"step"`
	Tool    string          `json:"tool"`
	Output  string          `json:"output,omitempty"`
	Content string          `json:"content"`
	Value   json.RawMessage `json:"structured,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
}

// steps is the mskill and oskill kinds: each step's tool called in order
// with its params' templates expanded (once) from the input and the
// outputs so far. A step's output is its result's text, what a model
// would have read. A failing step ends the run: the result is an
// error naming the step, with every result so far.
func (r *Runner) steps(ctx context.Context, s *mdskill.Skill, in map[string]any) (*host.ToolResult, error) {
	if r.Tools == nil {
		return host.ErrorResult(fmt.Sprintf("skill_%s: no tools to run its steps with", s.Name)), nil
	}
	outputs := map[string]any{}
	var done []stepResult
	for i, st := range s.Steps {
		params, err := mdskill.Expand(st.Params, in, outputs)
		if err == nil && params == nil {
			params = map[string]any{}
		}
		var res *host.ToolResult
		if err == nil {
			var input []byte
			input, err = json.Marshal(params)
			if err == nil {
				res, err = r.Tools.Call(ctx, st.Tool, input)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			res = host.ErrorResult(err.Error())
		}
		sr := stepResult{Step: i + 1, Tool: st.Tool, Output: st.Output, Content: res.Content, Value: res.Structured, IsError: res.IsError}
		done = append(done, sr)
		if res.IsError {
			return stepsResult(done, fmt.Sprintf("skill_%s: step %d (%s) failed: %s", s.Name, i+1, st.Tool, res.Content), true), nil
		}
		if st.Output != "" {
			outputs[st.Output] = res.Content
		}
	}
	last := ""
	if len(done) > 0 {
		last = done[len(done)-1].Content
	}
	return stepsResult(done, last, false), nil
}

func stepsResult(done []stepResult, content string, isErr bool) *host.ToolResult {
	b, _ := json.Marshal(map[string]any{"steps": done})
	return &host.ToolResult{Content: content, Structured: b, IsError: isErr}
}
