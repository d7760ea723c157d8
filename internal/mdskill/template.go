package mdskill

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// template is one {{input.NAME}} or {{steps.NAME}} reference (spaces
// inside the braces allowed).
var template = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)?)\s*\}\}`)

// templateRefs lists the references in a step's params, each once,
// sorted, walking nested maps and lists.
func templateRefs(v any) []string {
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			for _, m := range template.FindAllStringSubmatch(x, -1) {
				seen[m[1]] = true
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Expand substitutes the templates of a step's params from the input and
// the earlier steps' outputs, in one pass: a value substituted is never
// read for templates again, so an input holding "{{steps.secret}}" stays
// that text. A string that is one template alone becomes the value
// itself (a number stays a number); a template inside other text becomes
// the value's text (a string as it is, anything else as JSON).
func Expand(params map[string]any, input, steps map[string]any) (map[string]any, error) {
	out, err := expand(params, input, steps)
	if err != nil {
		return nil, err
	}
	m, _ := out.(map[string]any)
	return m, nil
}

func expand(v any, input, steps map[string]any) (any, error) {
	switch x := v.(type) {
	case string:
		if m := template.FindStringSubmatchIndex(x); m != nil && m[0] == 0 && m[1] == len(x) {
			return lookup(x[m[2]:m[3]], input, steps)
		}
		var firstErr error
		s := template.ReplaceAllStringFunc(x, func(t string) string {
			ref := template.FindStringSubmatch(t)[1]
			val, err := lookup(ref, input, steps)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return t
			}
			if s, ok := val.(string); ok {
				return s
			}
			b, _ := json.Marshal(val)
			return string(b)
		})
		return s, firstErr
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := expand(e, input, steps)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := expand(e, input, steps)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func lookup(ref string, input, steps map[string]any) (any, error) {
	kind, name, _ := strings.Cut(ref, ".")
	var from map[string]any
	switch kind {
	case "input":
		from = input
	case "steps":
		from = steps
	default:
		return nil, fmt.Errorf("template {{%s}}: only {{input.NAME}} and {{steps.NAME}}", ref)
	}
	v, ok := from[name]
	if !ok {
		if kind == "input" {
			return nil, nil // an optional parameter not given
		}
		return nil, fmt.Errorf("template {{%s}}: no such step output", ref)
	}
	return v, nil
}
