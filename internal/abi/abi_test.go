package abi

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string // result JSON, or "error:<code>"
	}{
		{"result", EncodeResult(map[string]int{"a": 1}), `{"a":1}`},
		{"raw", EncodeResult(json.RawMessage(`[1,2]`)), `[1,2]`},
		{"nil", EncodeResult(nil), `null`},
		{"empty raw", EncodeResult(json.RawMessage(nil)), `null`},
		{"bad raw", EncodeResult(json.RawMessage(`{`)), "error:internal"},
		{"unencodable", EncodeResult(func() {}), "error:internal"},
		{"too large", EncodeResult(strings.Repeat("x", MaxPayload)), "error:too_large"},
		{"error", EncodeError(Errorf(CodeDenied, "tools x denied")), "error:denied"},
		{"nil error", EncodeError(nil), "error:internal"},
		{"garbage", []byte("garbage"), "error:invalid"},
		{"ok without result", []byte(`{"ok":true}`), `null`},
		{"not ok without error", []byte(`{"ok":false}`), "error:invalid"},
		{"ok with error", []byte(`{"ok":true,"error":{"code":"x","message":""}}`), "error:invalid"},
		{"too deep", []byte(`{"ok":true,"result":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`), "error:invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := DecodeResponse(tt.in)
			got := string(res)
			if err != nil {
				e, ok := errors.AsType[*Error](err)
				require.True(t, ok, "error %v is not an *Error", err)
				got = "error:" + e.Code
			}
			assert.Equal(t, tt.want, got, "DecodeResponse(%.80s)", tt.in)
		})
	}
}

func TestEncodeErrorCutsLongMessages(t *testing.T) {
	b := EncodeError(&Error{Code: CodeInternal, Message: strings.Repeat("é", maxMessage)})
	_, err := DecodeResponse(b)
	e, _ := errors.AsType[*Error](err)
	require.NotNil(t, e, "got %v, want an *Error", err)
	require.LessOrEqual(t, len(e.Message), maxMessage+3, "bytes of the message")
	require.True(t, strings.HasSuffix(e.Message, "..."), "the message does not end in ...")
}

func TestCheckJSON(t *testing.T) {
	tests := []struct {
		in   string
		want error // nil, a sentinel, or errAny for any other error
	}{
		{`{}`, nil},
		{`"[[[[[["`, nil},
		{`"\"[["`, nil},
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), nil},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), ErrTooDeep},
		{`{"a":` + strings.Repeat("{", 1000), ErrTooDeep},
		{`"` + strings.Repeat("a", MaxPayload) + `"`, ErrTooLarge},
		{``, errAny},
		{`{} {}`, errAny},
		{`{"a":}`, errAny},
	}
	for _, tt := range tests {
		err := CheckJSON([]byte(tt.in))
		switch {
		case tt.want == nil:
			assert.NoError(t, err, "CheckJSON(%.40q)", tt.in)
		case errors.Is(tt.want, errAny):
			assert.Error(t, err, "CheckJSON(%.40q)", tt.in)
		default:
			assert.ErrorIs(t, err, tt.want, "CheckJSON(%.40q)", tt.in)
		}
	}
}

var errAny = errors.New("any error")

func TestReadResult(t *testing.T) {
	for _, data := range [][]byte{[]byte("hello"), {0xff, 0, 1}, {}} {
		b := EncodeResult(NewReadResult(data))
		raw, err := DecodeResponse(b)
		require.NoError(t, err)
		var r ReadResult
		require.NoError(t, Decode(raw, &r))
		assert.Equal(t, string(data), string(r.Bytes()), "round trip of %q (%s)", data, b)
	}
}

// FuzzDecodeResponse: decoding never panics, and whatever decodes
// re-encodes to an envelope that decodes the same way.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"ok":true,"result":{"a":[1,2,3]}}`,
		`{"ok":false,"error":{"code":"denied","message":"tools x denied"}}`,
		`{"ok":true}`, `{"ok":false}`, `null`, `[`, `"\u0000"`, `{"ok":true,"result":"\ud800"}`,
		strings.Repeat("[", 100),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := DecodeResponse(b)
		if err != nil {
			if _, ok := errors.AsType[*Error](err); !ok {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		res2, err := DecodeResponse(EncodeResult(res))
		require.NoError(t, err, "re-encoded result of %q does not decode", b)
		var v1, v2 any
		if json.Unmarshal(res, &v1) != nil || json.Unmarshal(res2, &v2) != nil {
			t.Fatalf("result %q is not JSON", res)
		}
	})
}
