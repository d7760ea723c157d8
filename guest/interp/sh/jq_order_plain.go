//go:build !skillrun_gojq

package main

import "encoding/json"

// Without the patched gojq (go vet, the native test build), objects have
// gojq's sorted order; the shell is always built with the patch.

func decodeValue(dec *json.Decoder) (any, error) {
	var v any
	err := dec.Decode(&v)
	return v, err
}

func setKeyOrder(map[string]any, []string) {}
