package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
)

// Bounds of the conversations an iskill keeps: a caller cannot make the
// host hold without limit what it says.
const (
	maxConversations = 256
	maxTurns         = 50
	maxMessageBytes  = 64 << 10
	conversationIdle = 30 * time.Minute
)

// conversations are the iskills' conversations by id.
type conversations struct {
	mu sync.Mutex
	m  map[string]*conversation
}

type conversation struct {
	skill   string
	history []agent.Message
	used    time.Time
}

// withConversationID adds the optional conversation_id to an iskill's
// input schema.
func withConversationID(schema json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(schema, &m) != nil {
		return schema
	}
	props, _ := m["properties"].(map[string]any)
	props["conversation_id"] = map[string]any{"type": "string",
		"description": "the id a previous reply gave, to continue that conversation"}
	b, _ := json.Marshal(m)
	return b
}

// converse is the iskill kind: the input's turn added to the conversation
// its conversation_id names (or a new one), the model's reply returned
// with the id.
func (r *Runner) converse(ctx context.Context, s *mdskill.Skill, in map[string]any) (*host.ToolResult, error) {
	id, _ := in["conversation_id"].(string)
	delete(in, "conversation_id")
	turn := formatInput(in)
	if len(in) == 1 {
		for _, v := range in {
			if str, ok := v.(string); ok {
				turn = str // a single text parameter is the message itself
			}
		}
	}
	if len(turn) > maxMessageBytes {
		return host.ErrorResult(fmt.Sprintf("skill_%s: the message is over %d bytes", s.Name, maxMessageBytes)), nil
	}
	c, id, err := r.conversations.take(s.Name, id)
	if err != nil {
		return host.ErrorResult(fmt.Sprintf("skill_%s: %v", s.Name, err)), nil
	}
	msgs := append(append([]agent.Message{}, c.history...), agent.Message{Role: agent.RoleUser, Text: turn})
	resp, err := r.complete(ctx, s, msgs)
	if err != nil {
		return nil, err
	}
	res := textResult(resp.Message.Text, "text", map[string]any{"conversation_id": id,
		"turns": (len(msgs) + 1) / 2, "usage": resp.Usage})
	reply := resp.Message
	reply.Text = res.Content // what the caller saw, not more, is kept
	r.conversations.put(id, c, append(msgs, reply))
	return res, nil
}

// take returns the conversation id names (a new one for ""), refusing an
// unknown or expired id, another skill's, and one at its turn limit.
func (cs *conversations) take(skill, id string) (*conversation, string, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	now := time.Now()
	for k, c := range cs.m { // expire the idle
		if now.Sub(c.used) > conversationIdle {
			delete(cs.m, k)
		}
	}
	if id == "" {
		if len(cs.m) >= maxConversations {
			return nil, "", fmt.Errorf("%d conversations are open, the most kept; continue one, or wait %s for idle ones to expire", maxConversations, conversationIdle)
		}
		var b [12]byte
		_, _ = rand.Read(b[:])
		return &conversation{skill: skill}, hex.EncodeToString(b[:]), nil
	}
	c, ok := cs.m[id]
	if !ok || c.skill != skill {
		return nil, "", fmt.Errorf("no conversation %q (unknown, or idle over %s); leave conversation_id out to start one", id, conversationIdle)
	}
	if len(c.history)/2 >= maxTurns {
		return nil, "", fmt.Errorf("conversation %s has reached %d turns; start a new one", id, maxTurns)
	}
	return c, id, nil
}

func (cs *conversations) put(id string, c *conversation, history []agent.Message) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[string]*conversation{}
	}
	c.history, c.used = history, time.Now()
	cs.m[id] = c
}
