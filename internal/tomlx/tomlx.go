// Package tomlx holds what the strict TOML readers of skill.toml (package
// skills) and policy files (package capabilities) share on top of
// github.com/BurntSushi/toml: naming a decoded value's type, suggesting the
// key an unknown one meant, and locating keys' lines (see [LocateKeys]).
package tomlx

import (
	"fmt"
	"strings"
	"time"
)

// DescribeValue names a decoded TOML value's type. For an array it names
// the first element that is not a string, the usual mistake.
func DescribeValue(v any) string {
	switch v := v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return "an array containing " + DescribeValue(e)
			}
		}
		return "an array"
	case time.Time:
		return "a date-time"
	}
	return "a date or time"
}

// DidYouMean suggests the allowed key closest to name, if any is close, as
// "; did you mean %q?", or returns "".
func DidYouMean(name string, allowed []string) string {
	if best := Closest(name, allowed); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// Closest returns the allowed key closest to name: one that differs only in
// case, or else the first at the smallest edit distance below 3; or "".
func Closest(name string, allowed []string) string {
	best, bestDist := "", 3
	for _, a := range allowed {
		if strings.EqualFold(a, name) {
			return a
		}
		if dist := editDistance(name, a, bestDist); dist < bestDist {
			best, bestDist = a, dist
		}
	}
	return best
}

// editDistance returns the Levenshtein distance between a and b in runes,
// or limit when it is at least limit (keys can be long; names are short).
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}
