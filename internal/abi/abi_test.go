package abi

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
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
				if !ok {
					t.Fatalf("error %v is not an *Error", err)
				}
				got = "error:" + e.Code
			}
			if got != tt.want {
				t.Errorf("DecodeResponse(%.80s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestEncodeErrorCutsLongMessages(t *testing.T) {
	b := EncodeError(&Error{Code: CodeInternal, Message: strings.Repeat("é", maxMessage)})
	_, err := DecodeResponse(b)
	e, _ := errors.AsType[*Error](err)
	if e == nil || len(e.Message) > maxMessage+3 || !strings.HasSuffix(e.Message, "...") {
		t.Fatalf("got %v", err)
	}
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
		case tt.want == nil && err != nil, tt.want != nil && err == nil:
			t.Errorf("CheckJSON(%.40q) = %v, want %v", tt.in, err, tt.want)
		case tt.want != nil && !errors.Is(tt.want, errAny) && !errors.Is(err, tt.want):
			t.Errorf("CheckJSON(%.40q) = %v, want %v", tt.in, err, tt.want)
		}
	}
}

var errAny = errors.New("any error")

func TestReadResult(t *testing.T) {
	for _, data := range [][]byte{[]byte("hello"), {0xff, 0, 1}, {}} {
		b := EncodeResult(NewReadResult(data))
		raw, err := DecodeResponse(b)
		if err != nil {
			t.Fatal(err)
		}
		var r ReadResult
		if err := Decode(raw, &r); err != nil {
			t.Fatal(err)
		}
		if string(r.Bytes()) != string(data) {
			t.Errorf("round trip of %q gave %q (%s)", data, r.Bytes(), b)
		}
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
		if err != nil {
			t.Fatalf("re-encoded result of %q does not decode: %v", b, err)
		}
		var v1, v2 any
		if json.Unmarshal(res, &v1) != nil || json.Unmarshal(res2, &v2) != nil {
			t.Fatalf("result %q is not JSON", res)
		}
	})
}
