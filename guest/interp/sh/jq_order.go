//go:build skillrun_gojq

package main

import (
	"encoding/json"

	"github.com/itchyny/gojq"
)

// The shell's own build (internal/interp, -tags skillrun_gojq) uses
// gojq patched to keep objects' key order: these reach the patch.

// decodeValue reads the next JSON value of dec with its objects' key
// order (io.EOF at the end).
func decodeValue(dec *json.Decoder) (any, error) { return gojq.SkillrunDecode(dec) }

// setKeyOrder records keys as m's key order.
func setKeyOrder(m map[string]any, keys []string) { gojq.SkillrunSetOrder(m, keys) }
