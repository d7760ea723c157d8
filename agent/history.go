package agent

import (
	"encoding/json"
	"fmt"
)

// Bounds on the parts of the latest turn kept when it alone is over
// [Limits.MaxHistoryBytes]: the model's text, and each tool input, which
// is replaced by a small object that says it was not kept.
const (
	maxKeptText  = 64 << 10
	maxKeptInput = 16 << 10
)

// messageSize is what m adds to a request, near enough: its text, and the
// names, ids, inputs and contents of its calls and results.
func messageSize(m Message) int {
	n := len(m.Text)
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Input)
	}
	for _, r := range m.ToolResults {
		n += len(r.CallID) + len(r.Content)
	}
	return n
}

func historySize(h []Message) int {
	n := 0
	for _, m := range h {
		n += messageSize(m)
	}
	return n
}

// boundHistory returns h cut to at most limit bytes ([messageSize]).
//
// Why: the history is re-sent on every turn, and both the model's replies
// and the tools' results are untrusted and large; without a bound a hostile
// endpoint grows memory and every request without end. The first message
// (the task) is always kept. Whole turns go first, oldest first, so every
// tool call kept still has its result (the APIs require the pair); the
// task then says how many turns were dropped. If the latest turn alone is
// still over, its text is cut, its large inputs are replaced, and its
// results are cut to an equal share of what is left.
func boundHistory(h []Message, limit int) []Message {
	if len(h) == 0 || historySize(h) <= limit {
		return h
	}
	task := h[0]
	rest := h[1:]
	dropped := 0
	// A turn is an assistant message and, when it made calls, the user
	// message with their results.
	for len(rest) > 2 && messageSize(task)+historySize(rest) > limit {
		n := 1
		if len(rest[0].ToolCalls) > 0 && len(rest) > 1 && len(rest[1].ToolResults) > 0 {
			n = 2
		}
		rest = rest[n:]
		dropped++
	}
	out := make([]Message, 0, len(rest)+1)
	if dropped > 0 {
		task.Text = Truncate(task.Text, max(limit/4, 1)) +
			fmt.Sprintf("\n\n[%d earlier turns of this conversation were dropped to keep it under %d bytes]", dropped, limit)
	}
	out = append(out, task)
	out = append(out, rest...)
	if historySize(out) <= limit {
		return out
	}
	// The latest turn alone is too large: cut it, on a copy (the
	// messages' slices are shared with the caller's).
	for i := 1; i < len(out); i++ {
		m := out[i]
		m.Text = Truncate(m.Text, maxKeptText)
		if len(m.ToolCalls) > 0 {
			calls := make([]ToolCall, len(m.ToolCalls))
			for k, c := range m.ToolCalls {
				c.ID, c.Name = Truncate(c.ID, maxKeptName), Truncate(c.Name, maxKeptName)
				if len(c.Input) > maxKeptInput {
					c.Input, _ = json.Marshal(map[string]string{"not_kept": fmt.Sprintf("an input of %d bytes, cut from the history", len(c.Input))})
				}
				calls[k] = c
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	over := historySize(out) - limit
	for i := 1; i < len(out) && over > 0; i++ {
		if len(out[i].ToolResults) == 0 {
			continue
		}
		m := out[i]
		res := make([]ToolOutput, len(m.ToolResults))
		copy(res, m.ToolResults)
		other := historySize(out) - messageSize(m)
		share := max((limit-other)/len(res)-maxKeptName, 0)
		for k := range res {
			res[k].CallID = Truncate(res[k].CallID, maxKeptName)
			if len(res[k].Content) > share {
				res[k].Content = Truncate(res[k].Content, share) + "\n[cut to keep the conversation bounded]"
			}
		}
		m.ToolResults = res
		out[i] = m
		over = historySize(out) - limit
	}
	return out
}

// maxKeptName bounds a call's id and name in a cut turn. Cutting an id
// would unpair a call from its result; ids this long are not real ones,
// and the cut is the same for both (the same Truncate of the same text).
const maxKeptName = 256
