package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// envelopeTypes are the payloads of both directions: the requests a guest
// sends (decoded by the host) and the results the host returns (decoded by
// the guest SDK).
var envelopeTypes = []func() any{
	func() any { return new(LogRequest) },
	func() any { return new(ToolCallRequest) },
	func() any { return new(SearchRequest) },
	func() any { return new(ActivateRequest) },
	func() any { return new(ReadRequest) },
	func() any { return new(RunRequest) },
	func() any { return new(MCPRequest) },
	func() any { return new(FetchRequest) },
	func() any { return new(OutputResult) },
	func() any { return new(ToolResult) },
	func() any { return new(SearchResult) },
	func() any { return new(ActivateResult) },
	func() any { return new(ReadResult) },
	func() any { return new(FetchResponse) },
}

// FuzzDecodePayload decodes arbitrary bytes as each request and result of
// the ABI, the way both sides decode what the other sends. Properties:
// [CheckJSON] accepts exactly the valid JSON within the size and depth
// bounds; its errors match [ErrTooLarge] or [ErrTooDeep] when those are
// the reason; and a payload that decodes re-encodes to a payload that
// decodes to the same value (encode, decode, encode is stable).
func FuzzDecodePayload(f *testing.F) {
	for _, s := range []string{
		`{"level":"warn","msg":"x"}`,
		`{"name":"echo","input":{"a":[1,2,{"b":null}]}}`,
		`{"query":"pdf","limit":-1}`,
		`{"path":"../../etc/passwd"}`,
		`{"skill":"a","script":"b","input":"\u0000"}`,
		`{"server":"gh","tool":"t","args":[]}`,
		`{"method":"GET","url":"http://127.0.0.1:1/","headers":{"A":"b"},"body":"AAEC"}`,
		`{"text":"\ud800"}`, `{"base64":"!!"}`, `{"status":1e400}`,
		`{"skills":[{"name":"a","description":"d"}]}`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		`"\\"[[[[`, `{"a":"]]]"}`, `1 2`, ``,
	} {
		for i := range envelopeTypes {
			f.Add([]byte(s), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		err := CheckJSON(b)
		valid := json.Valid(b)
		switch {
		case len(b) > MaxPayload:
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%d bytes: CheckJSON = %v, want ErrTooLarge", len(b), err)
			}
			return
		case !valid && err == nil:
			t.Fatalf("CheckJSON accepted invalid JSON %q", b)
		case valid && jsonDepth(t, b) > MaxDepth && !errors.Is(err, ErrTooDeep):
			t.Fatalf("CheckJSON = %v for %q nested %d deep, want ErrTooDeep", err, b, jsonDepth(t, b))
		case valid && jsonDepth(t, b) <= MaxDepth && err != nil:
			t.Fatalf("CheckJSON refused valid JSON %q nested %d deep: %v", b, jsonDepth(t, b), err)
		}

		newV := envelopeTypes[int(which)%len(envelopeTypes)]
		v := newV()
		if err := Decode(b, v); err != nil {
			return
		}
		enc, err := json.Marshal(v)
		require.NoError(t, err, "decoded %T from %q does not encode", v, b)
		v2 := newV()
		require.NoError(t, Decode(enc, v2), "%T %q decoded, but its encoding %s does not", v, b, enc)
		enc2, err := json.Marshal(v2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("%T round trip not stable: %s then %s (%v)", v, enc, enc2, err)
		}
	})
}

// jsonDepth is the nesting depth of the valid JSON b, counted with the
// standard decoder's tokens (an independent count from CheckJSON's scan).
func jsonDepth(t *testing.T, b []byte) int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			deepest = max(deepest, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}
