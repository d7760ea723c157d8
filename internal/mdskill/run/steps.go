package run

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
)

// A stepResult is one step's outcome, as the result lists them.
type stepResult struct {
	Step    int             `json:"step"`
	Tool    string          `json:"tool"`
	Output  string          `json:"output,omitempty"`
	Content string          `json:"content"`
	Value   json.RawMessage `json:"structured,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	// Cut says what of the step's result was left out to keep the
	// run's result within its bound.
	Cut string `json:"cut,omitempty"`
}

// stepShare is how much of the run's result one step's content, and
// as much its structured value, may take: the steps share
// host.MaxResultContent, so a chain of tools that each return the most
// they may still makes a bounded result. stepOverhead is room for the
// rest of a step's record (its number, tool, output name and cut note).
func stepShare(steps int) int {
	return ((host.MaxResultContent-resultReserve)/max(steps, 1) - stepOverhead) / 2
}

const stepOverhead = 512

// record is what the run's result keeps of a step's result: its content
// cut to share bytes of JSON, its structured value left out if over
// share, and a note of what was cut.
func record(i int, st mdskill.Step, res *host.ToolResult, share int) stepResult {
	sr := stepResult{Step: i + 1, Tool: st.Tool, Output: st.Output, IsError: res.IsError}
	var cut []string
	if sr.Content = fitText(res.Content, share); sr.Content != res.Content {
		cut = append(cut, fmt.Sprintf("the content was cut from %d bytes", len(res.Content)))
	}
	if len(res.Structured) <= share {
		sr.Value = res.Structured
	} else {
		cut = append(cut, fmt.Sprintf("the structured value of %d bytes was left out", len(res.Structured)))
	}
	if len(cut) > 0 {
		sr.Cut = fmt.Sprintf("%s: over this step's %d-byte share of the run's result", strings.Join(cut, " and "), share)
	}
	return sr
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
	last := ""
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
		// A step's tool is bounded as every tool is, but its content is
		// cut here too: a later step's template may hold it.
		content := host.CutText(res.Content, host.MaxResultContent)
		done = append(done, record(i, st, res, stepShare(len(s.Steps))))
		if res.IsError {
			return stepsResult(done, fmt.Sprintf("skill_%s: step %d (%s) failed: %s", s.Name, i+1, st.Tool, content), true), nil
		}
		if st.Output != "" {
			outputs[st.Output] = content
		}
		last = content
	}
	return stepsResult(done, last, false), nil
}

func stepsResult(done []stepResult, content string, isErr bool) *host.ToolResult {
	b, _ := json.Marshal(map[string]any{"steps": done})
	return &host.ToolResult{Content: content, Structured: b, IsError: isErr}
}
