package tomlx

import (
	"strings"
	"testing"
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
		if got := DidYouMean(tt.name, allowed); got != tt.want {
			t.Errorf("DidYouMean(%.20q) = %q, want %q", tt.name, got, tt.want)
		}
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
		if got := Closest(tt.name, allowed); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
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
		if got := DescribeValue(tt.v); got != tt.want {
			t.Errorf("DescribeValue(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
