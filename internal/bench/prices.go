package bench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/agent"
)

// A Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Prices map a model name to its price. A name ending in "*" prices every
// model it prefixes ("claude-sonnet-4*"); the longest match wins.
type Prices map[string]Price

// DefaultPrices are the providers' list prices as of late 2025, the one
// place they are kept; an operator overrides or extends them with a JSON file of the
// same shape (LoadPrices). The scripted provider costs nothing.
var DefaultPrices = Prices{
	"scripted":          {},
	"claude-opus-4*":    {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
	"claude-opus-4-5*":  {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
	"claude-sonnet-4*":  {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-3-5-haiku*": {Input: 0.8, Output: 4, CacheRead: 0.08, CacheWrite: 1},
	"claude-haiku-4*":   {Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25},
	"gpt-4o":            {Input: 2.5, Output: 10, CacheRead: 1.25},
	"gpt-4o-mini":       {Input: 0.15, Output: 0.6, CacheRead: 0.075},
	"gpt-4.1":           {Input: 2, Output: 8, CacheRead: 0.5},
	"gpt-4.1-mini":      {Input: 0.4, Output: 1.6, CacheRead: 0.1},
	"gpt-5":             {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-mini":        {Input: 0.25, Output: 2, CacheRead: 0.025},
}

// ParsePrices reads a JSON price table ({"model": {"input": 3, ...}}) and
// returns DefaultPrices with its entries added or replaced.
func ParsePrices(data []byte, file string) (Prices, error) {
	var extra map[string]Price
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&extra); err != nil {
		return nil, fmt.Errorf("%s: a price table is {\"model\": {\"input\": USD per Mtok, \"output\": ..., \"cache_read\": ..., \"cache_write\": ...}}: %w", file, err)
	}
	out := Prices{}
	for k, v := range DefaultPrices {
		out[k] = v
	}
	for k, v := range extra {
		if v.Input < 0 || v.Output < 0 || v.CacheRead < 0 || v.CacheWrite < 0 {
			return nil, fmt.Errorf("%s: %s: a price cannot be negative", file, k)
		}
		out[k] = v
	}
	return out, nil
}

// Cost is what usage of model costs, or nil when the table has no price
// for it.
func (p Prices) Cost(model string, u agent.Usage) *float64 {
	best, found := "", false
	for name := range p {
		match := name == model || strings.HasSuffix(name, "*") && strings.HasPrefix(model, strings.TrimSuffix(name, "*"))
		if match && (!found || len(name) > len(best)) {
			best, found = name, true
		}
	}
	if !found {
		return nil
	}
	pr := p[best]
	c := (float64(u.InputTokens)*pr.Input + float64(u.OutputTokens)*pr.Output +
		float64(u.CacheReadTokens)*pr.CacheRead + float64(u.CacheWriteTokens)*pr.CacheWrite) / 1e6
	return &c
}
