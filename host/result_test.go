package host_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
)

// TestBoundResult: a result over the bound is cut to it, content at a
// UTF-8 boundary with the notice of what was left out, a structured value
// replaced by valid JSON that says why; one within it is untouched.
func TestBoundResult(t *testing.T) {
	small := &host.ToolResult{Content: "ok", Structured: json.RawMessage(`{"a":1}`)}
	assert.Same(t, small, host.BoundResult(small))
	assert.Nil(t, host.BoundResult(nil))

	big := &host.ToolResult{
		Content:    strings.Repeat("é", host.MaxResultContent), // two bytes each
		Structured: json.RawMessage(`"` + strings.Repeat("x", host.MaxResultContent) + `"`),
		IsError:    true,
	}
	got := host.BoundResult(big)
	require.NotSame(t, big, got)
	assert.LessOrEqual(t, len(got.Content), host.MaxResultContent)
	assert.True(t, utf8.ValidString(got.Content))
	assert.Regexp(t, `é\n\[cut: \d+ more bytes\]$`, got.Content)
	assert.LessOrEqual(t, len(got.Structured), host.MaxResultContent)
	assert.True(t, json.Valid(got.Structured))
	assert.Contains(t, string(got.Structured), "over the 1048576-byte limit")
	assert.True(t, got.IsError)
	assert.Len(t, big.Content, 2*host.MaxResultContent, "the original is not changed")

	assert.Equal(t, "abc", host.CutText("abc", 3))
	assert.Equal(t, "\n[cut: 100 more bytes]", host.CutText(strings.Repeat("a", 100), 5), "no room: only the notice")
}
