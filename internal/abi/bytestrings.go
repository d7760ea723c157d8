package abi

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// ByteStrings is a list of strings that keeps their bytes on the wire:
// JSON strings are UTF-8, and encoding/json turns each invalid byte into
// U+FFFD, so an argument like $'\377' would reach a nested program
// changed. Valid UTF-8 strings are JSON strings; the others are objects
// {"b":"<base64 of the bytes>"}.
type ByteStrings []string

// byteString is the JSON form of a string that is not valid UTF-8.
type byteString struct {
	B []byte `json:"b"`
}

// MarshalJSON encodes the strings, each as a JSON string when it is
// valid UTF-8 and as a byteString otherwise.
func (s ByteStrings) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	elems := make([]any, len(s))
	for i, v := range s {
		if utf8.ValidString(v) {
			elems[i] = v
		} else {
			elems[i] = byteString{B: []byte(v)}
		}
	}
	return json.Marshal(elems)
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (s *ByteStrings) UnmarshalJSON(data []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return err
	}
	if raws == nil {
		*s = nil
		return nil
	}
	out := make(ByteStrings, len(raws))
	for i, raw := range raws {
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			var b byteString
			if err := json.Unmarshal(raw, &b); err != nil {
				return err
			}
			out[i] = string(b.B)
			continue
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return err
		}
	}
	*s = out
	return nil
}
