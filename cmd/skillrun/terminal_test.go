package main

import (
	"context"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
)

// hostileName turns off wrapping, jumps right, overrides bidi and hides a
// zero-width space: what a skill, tool or server name may hold.
const hostileName = "deploy\x1b[?7l\x1b[999C\u202e\u200b\u009b"

// assertTerminalSafe fails if out holds any byte or rune a terminal acts on.
func assertTerminalSafe(t *testing.T, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\u200b", "\x07"} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q:\n%q", bad, out)
		}
	}
}

// TestLiveViewEscapesNames (issue 11, finding 15): the model's tool names
// in the live view's →/✗ lines, and every other name, are escaped.
func TestLiveViewEscapesNames(t *testing.T) {
	var b strings.Builder
	v := &liveView{w: &b, transcript: "t\x1b.jsonl"}
	v.show(agent.TranscriptEvent{Type: agent.EventSessionStart, Provider: "p\x1b", Model: hostileName, Agent: hostileName})
	v.show(agent.TranscriptEvent{Type: agent.EventModelTurn, Turn: 1, Usage: &agent.Usage{}, Text: "hi\x1b[2J", ToolCalls: []agent.ToolCall{{Name: hostileName, Input: []byte(`{"a":"\u001b[31m"}`)}}})
	v.show(agent.TranscriptEvent{Type: agent.EventToolResult, Tool: hostileName, IsError: true, Content: "no\x1b]0;x\x07"})
	v.show(agent.TranscriptEvent{Type: agent.EventPermission, Skill: hostileName, Script: hostileName, Requested: "env=" + hostileName})
	v.show(agent.TranscriptEvent{Type: agent.EventToolsLoaded, Tools: []string{hostileName, "ok"}, Via: hostileName})
	out := b.String()
	assertTerminalSafe(t, out)
	for _, want := range []string{
		`  → deploy\x1b[?7l\x1b[999C\u202e\u200b\u009b `,
		`  ✗ deploy\x1b[?7l\x1b[999C\u202e\u200b\u009b (`,
		`+ tools deploy\x1b[?7l\x1b[999C\u202e\u200b\u009b, ok`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("live view lacks %q:\n%s", want, out)
		}
	}
}

// TestTerminalAskerPrompt: the session's prompt states the request on its
// own line first; the names follow, quoted and escaped; the question last.
func TestTerminalAskerPrompt(t *testing.T) {
	var out strings.Builder
	ask := terminalAsker(strings.NewReader("a\n"), &out)
	req := agent.PermissionRequest{Skill: hostileName + strings.Repeat("x", 500), Script: "run",
		Missing: capabilities.Set{Env: []string{"AWS_SECRET"}}}
	d, err := ask.Ask(context.Background(), req)
	if err != nil || d != agent.AllowAlways {
		t.Fatalf("decision %v, %v; want always", d, err)
	}
	got := out.String()
	assertTerminalSafe(t, got)
	lines := strings.Split(got, "\n")
	if len(lines) != 4 || lines[0] != "" || lines[1] != "Permission requested: env=AWS_SECRET" ||
		!strings.HasPrefix(lines[2], `  by skill "deploy\x1b[?7l\x1b[999C\u202e\u200b\u009bxxx`) ||
		!strings.HasSuffix(lines[2], `xxx"…, script "run"`) ||
		!strings.HasPrefix(lines[3], "Allow? [o]nce, [a]lways") {
		t.Fatalf("prompt:\n%s", got)
	}
	if len(lines[2]) > 200 {
		t.Errorf("the name is not bounded: %d bytes", len(lines[2]))
	}
}

// TestAnswerOnTerminal: a hostile model's answer cannot clear the screen
// or fake text on a terminal; to a pipe it is kept as it came.
func TestAnswerOnTerminal(t *testing.T) {
	const answer = "Done.\n\x1b[2J\x1b[Hall checks passed\u202e"
	var b strings.Builder
	printAnswer(&b, answer, true)
	assertTerminalSafe(t, b.String())
	if !strings.Contains(b.String(), `\x1b[2J`) || !strings.HasPrefix(b.String(), "Done.\n") {
		t.Errorf("on a terminal: %q; want the escapes shown and the lines kept", b.String())
	}
	b.Reset()
	printAnswer(&b, answer, false)
	if b.String() != answer+"\n" {
		t.Errorf("to a pipe: %q; want the answer unchanged", b.String())
	}
}

// TestLiveViewPartialEvents: events without usage or totals (a provider
// that reports none) are shown with zeros, never a panic.
func TestLiveViewPartialEvents(t *testing.T) {
	var b strings.Builder
	v := &liveView{w: &b}
	v.show(agent.TranscriptEvent{Type: agent.EventModelTurn, Turn: 1, StopReason: "end_turn"})
	v.show(agent.TranscriptEvent{Type: agent.EventSessionEnd, Outcome: "completed"})
	if !strings.Contains(b.String(), "[turn 1] end_turn (0 in, 0 out tokens)") || !strings.Contains(b.String(), "session completed: 0 turns") {
		t.Errorf("live view: %q", b.String())
	}
}
