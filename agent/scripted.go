package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/internal/tomlx"
)

// maxPlanSize bounds a plan file.
const maxPlanSize = 1 << 20

// A Plan is what the scripted provider says, turn by turn: a conversation
// written in advance, for demos, tests and reproducible trials. It is a
// TOML file (or the same in JSON, see [ParsePlan]):
//
//	task = "Summarise workspace/sales.csv"   # used when no task is given
//
//	[[turn]]
//	text = "I'll look for a skill that reads CSV files."
//	[[turn.call]]
//	tool = "skill_search"
//	input = { query = "csv statistics" }
//
//	[[turn]]
//	expect = ["csv-stats"]   # the previous turn's results must contain these
//	[[turn.call]]
//	tool = "skill_activate"
//	input = { name = "csv-stats" }
//
//	[[turn]]
//	text = "Done."
//
// A turn with calls ends with stop reason tool_use, the last turn (without
// calls) with end_turn.
type Plan struct {
	Task  string     `toml:"task"`
	Model string     `toml:"model"`
	Turns []PlanTurn `toml:"turn"`
	// File is where the plan was read from, for messages.
	File string `toml:"-"`
}

// A PlanTurn is one reply of the scripted model.
type PlanTurn struct {
	Text string `toml:"text"`
	// Expect lists strings that must each appear in the results of the
	// previous turn's tool calls; a miss fails the session, so a plan
	// checks that the tools did what it assumes.
	Expect []string   `toml:"expect"`
	Calls  []PlanCall `toml:"call"`
	// Usage, if set, is reported instead of the estimate.
	Usage *Usage `toml:"usage"`
}

// A PlanCall is one tool call of a [PlanTurn]: Input as a TOML table, or
// InputJSON as raw text (which may be invalid on purpose).
type PlanCall struct {
	Tool      string         `toml:"tool"`
	Input     map[string]any `toml:"input"`
	InputJSON string         `toml:"input_json"`
}

// LoadPlan reads and checks a plan file.
func LoadPlan(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPlanSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ParsePlan(data, path)
}

// ParsePlan parses a plan, TOML or, when its first non-blank byte is "{",
// JSON. Unknown keys, a call without
// a tool or an input given both ways are errors naming the file and, for
// TOML, the line.
//
// The JSON form has the same fields, with plural lists, for programs that
// write plans:
//
//	{"task": "...", "turns": [
//	  {"text": "...", "calls": [{"tool": "skill_search", "input": {"query": "csv"}}]},
//	  {"expect": ["csv-stats"], "text": "Done."}]}
func ParsePlan(data []byte, file string) (*Plan, error) {
	if len(data) > maxPlanSize {
		return nil, fmt.Errorf("%s: plan is larger than the limit of %d KiB", file, maxPlanSize>>10)
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return parseJSONPlan(data, file)
	}
	lines, tooDeep := tomlx.LocateKeys(data)
	if tooDeep > 0 {
		return nil, fmt.Errorf("%s:%d: plan nests tables too deeply", file, tooDeep)
	}
	var p Plan
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&p)
	if err != nil {
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			return nil, fmt.Errorf("%s:%d: invalid TOML: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var errs []error
	for _, k := range md.Undecoded() {
		if len(k) > 2 && k[1] == "call" && k[2] == "input" {
			continue // an input table holds any keys
		}
		allowed := []string{"task", "model", "turn"}
		switch {
		case len(k) == 2 && k[0] == "turn":
			allowed = []string{"text", "expect", "call", "usage"}
		case len(k) == 3 && k[1] == "call":
			allowed = []string{"tool", "input", "input_json"}
		case len(k) == 3 && k[1] == "usage":
			allowed = []string{"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"}
		}
		errs = append(errs, fmt.Errorf("%s:%d: unknown key %q%s", file, lines.Line(k), k.String(), tomlx.DidYouMean(k[len(k)-1], allowed)))
	}
	errs = append(errs, p.check(file)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	p.File = file
	return &p, nil
}

// check returns what is wrong with a decoded plan.
func (p *Plan) check(file string) []error {
	var errs []error
	if len(p.Turns) == 0 {
		errs = append(errs, fmt.Errorf("%s: plan has no turns ([[turn]] in TOML, \"turns\" in JSON)", file))
	}
	for i, t := range p.Turns {
		for j, c := range t.Calls {
			where := fmt.Sprintf("%s: turn %d call %d", file, i+1, j+1)
			switch {
			case c.Tool == "":
				errs = append(errs, fmt.Errorf("%s: no tool", where))
			case c.Input != nil && c.InputJSON != "":
				errs = append(errs, fmt.Errorf("%s: give input or input_json, not both", where))
			}
		}
	}
	return errs
}

// parseJSONPlan parses the JSON form of a plan.
func parseJSONPlan(data []byte, file string) (*Plan, error) {
	var jp struct {
		Task  string `json:"task"`
		Model string `json:"model"`
		Turns []struct {
			Text   string   `json:"text"`
			Expect []string `json:"expect"`
			Usage  *Usage   `json:"usage"`
			Calls  []struct {
				Tool      string          `json:"tool"`
				Input     json.RawMessage `json:"input"`
				InputJSON string          `json:"input_json"`
			} `json:"calls"`
		} `json:"turns"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jp); err != nil {
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			return nil, fmt.Errorf("%s:%d: invalid JSON: %w", file, 1+bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")), err)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	p := &Plan{Task: jp.Task, Model: jp.Model, File: file}
	var errs []error
	for i, jt := range jp.Turns {
		t := PlanTurn{Text: jt.Text, Expect: jt.Expect, Usage: jt.Usage}
		for j, jc := range jt.Calls {
			c := PlanCall{Tool: jc.Tool, InputJSON: jc.InputJSON}
			if in := bytes.TrimSpace(jc.Input); len(in) > 0 && string(in) != "null" {
				if in[0] != '{' {
					errs = append(errs, fmt.Errorf("%s: turn %d call %d: input must be a JSON object (use input_json for anything else)", file, i+1, j+1))
				}
				if jc.InputJSON != "" {
					c.Input = map[string]any{} // reported by check: both given
				} else {
					var compact bytes.Buffer
					if err := json.Compact(&compact, in); err == nil {
						c.InputJSON = compact.String()
					}
				}
			}
			t.Calls = append(t.Calls, c)
		}
		p.Turns = append(p.Turns, t)
	}
	errs = append(errs, p.check(file)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// scripted is the [Provider] that replays a [Plan].
type scripted struct{ plan *Plan }

// NewScripted returns a provider that answers with the turns of plan, in
// order, whatever the request says, except that a turn's Expect is checked
// against the request's latest tool results. It keeps no state: the turn
// is the number of assistant messages in the request, so one provider can
// serve many sessions at once, each the same way.
func NewScripted(plan *Plan) Provider { return &scripted{plan: plan} }

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Complete(ctx context.Context, req *Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := 0
	var last []ToolOutput
	for _, m := range req.Messages {
		if m.Role == RoleAssistant {
			n++
		}
		if m.Role == RoleUser {
			last = m.ToolResults
		}
	}
	if n >= len(s.plan.Turns) {
		return nil, &ProviderError{Provider: "scripted", Kind: ErrBadRequest,
			Message: fmt.Sprintf("%s: the plan has %d turns and the session asked for turn %d (the last turn must have no calls)", s.plan.File, len(s.plan.Turns), n+1)}
	}
	t := s.plan.Turns[n]
	var results strings.Builder
	for _, r := range last {
		results.WriteString(r.Content)
		results.WriteByte('\n')
	}
	for _, want := range t.Expect {
		if !strings.Contains(results.String(), want) {
			return nil, &ProviderError{Provider: "scripted", Kind: ErrBadRequest,
				Message: fmt.Sprintf("%s: turn %d expects %q in the previous results, which were:\n%s", s.plan.File, n+1, want, Truncate(results.String(), MaxErrorMessage))}
		}
	}
	msg := Message{Role: RoleAssistant, Text: t.Text}
	for j, c := range t.Calls {
		input := json.RawMessage(c.InputJSON)
		if c.InputJSON == "" {
			in := c.Input
			if in == nil {
				in = map[string]any{}
			}
			b, err := json.Marshal(in)
			if err != nil {
				return nil, &ProviderError{Provider: "scripted", Kind: ErrBadRequest, Message: fmt.Sprintf("%s: turn %d call %d: %v", s.plan.File, n+1, j+1, err)}
			}
			input = b
		}
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: fmt.Sprintf("call_%d_%d", n+1, j+1), Name: c.Tool, Input: input})
	}
	resp := &Response{Message: msg, StopReason: StopEndTurn, RawStopReason: "end_turn", Model: cmpOr(req.Model, s.plan.Model, "scripted")}
	if len(msg.ToolCalls) > 0 {
		resp.StopReason, resp.RawStopReason = StopToolUse, "tool_use"
	}
	if t.Usage != nil {
		resp.Usage = *t.Usage
	} else {
		resp.Usage = Usage{InputTokens: estimateTokens(req), OutputTokens: estimateMessage(msg)}
	}
	return resp, nil
}

func cmpOr(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// estimateTokens is the usual rough count of four bytes a token, so a
// scripted session's totals move like a real one's.
func estimateTokens(req *Request) int64 {
	n := len(req.System)
	for _, m := range req.Messages {
		n += int(estimateMessage(m)) * 4
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return int64(n+3) / 4
}

func estimateMessage(m Message) int64 {
	n := len(m.Text)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Input)
	}
	for _, r := range m.ToolResults {
		n += len(r.Content)
	}
	return int64(n+3) / 4
}
