package tomlx

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDidYouMean(t *testing.T) {
	allowed := []string{"module", "plugin", "source", "export", "input_schema"}
	tests := []struct{ name, want string }{
		{"modle", `; did you mean "module"?`},
		{"modules", `; did you mean "module"?`},
		{"MODULE", `; did you mean "module"?`},
		{"plugn", `; did you mean "plugin"?`},
		{"input-schema", `; did you mean "input_schema"?`},
		{"colour", ""},
		{"", ""},
		{strings.Repeat("m", 10000), ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DidYouMean(tt.name, allowed), "DidYouMean(%.20q)", tt.name)
	}
}

func TestClosest(t *testing.T) {
	allowed := []string{"read", "write", "net", "timeout"}
	tests := []struct{ name, want string }{
		{"reed", "read"},
		{"wirte", "write"},
		{"Net", "net"},
		{"TIMEOUT", "timeout"},
		{"filesystem", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Closest(tt.name, allowed), "Closest(%q)", tt.name)
	}
}

func TestDescribeValue(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{"s", "a string"},
		{int64(1), "an integer"},
		{1.5, "a float"},
		{true, "a boolean"},
		{map[string]any{}, "a table"},
		{[]map[string]any{}, "an array of tables"},
		{[]any{"a", "b"}, "an array"},
		{[]any{"a", int64(1)}, "an array containing an integer"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DescribeValue(tt.v), "DescribeValue(%#v)", tt.v)
	}
}
