package host

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillrun/skillrun/internal/bm25"
	"github.com/skillrun/skillrun/skills"
)

// maxQueryLen bounds a search query, words or regexp, in bytes. Queries
// come from models and MCP clients; a regexp needs no other bound, since
// Go's regexp (RE2) runs in time linear in its input.
const maxQueryLen = 1 << 10

// A ToolMatch is one tool found by [Registry.Search]. It carries the whole
// definition, so a model that searched for a tool can call it without
// loading anything else (deferred tools).
type ToolMatch struct {
	Definition ToolDef `json:"definition"`
	Score      float64 `json:"score"`
}

// The fields a tool is searched by, with their weights: a word in the name
// (split on "_" and "-") is the strongest evidence, an argument name the
// next, the description and the arguments' descriptions are prose.
var toolFieldWeights = []float64{3, 2, 1, 1} // name, argument names, description, argument descriptions

// searchIndex is the index of the registry at generation gen.
type searchIndex struct {
	gen  uint64
	defs []ToolDef // sorted by name; document i is defs[i]
	ix   *bm25.Index
}

// Search returns the tools that match query, best first: by score, then
// by name. Without o.Regex the query is a bag of words ranked by BM25F
// over each tool's name, description, and the names and descriptions of
// its arguments (the top-level "properties" of its input schema), with
// weights 3 (name), 2 (argument names), 1 and 1; stopwords and plurals are
// folded as in skill search. Only tools with a positive score are
// returned, so a query with no known word returns an empty slice.
//
// The index is rebuilt on the first search after the registry changes.
// Search returns [skills.ErrEmptyQuery] for an empty query, and an error naming
// the problem for a query over 1 KiB or a regexp that does not
// compile.
func (r *Registry) Search(query string, o *skills.SearchOptions) ([]ToolMatch, error) {
	var opts skills.SearchOptions
	if o != nil {
		opts = *o
	}
	if opts.Limit == 0 {
		opts.Limit = skills.DefaultSearchLimit
	}
	if strings.TrimSpace(query) == "" {
		return nil, skills.ErrEmptyQuery
	}
	if len(query) > maxQueryLen {
		return nil, fmt.Errorf("host: tool search query is %d bytes, over the %d-byte limit", len(query), maxQueryLen)
	}
	si := r.searchIndex()
	scores, err := si.ix.Query(query, opts.Regex, maxQueryLen)
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	hits := bm25.Rank(scores, nil, opts.Limit) // defs are in name order
	matches := make([]ToolMatch, len(hits))
	for k, i := range hits {
		matches[k] = ToolMatch{Definition: si.defs[i], Score: scores[i]}
	}
	return matches, nil
}

// searchIndex returns the index of the registry as it is now, building it
// if the registry changed since the last one.
func (r *Registry) searchIndex() *searchIndex {
	r.searchMu.Lock()
	defer r.searchMu.Unlock()
	r.mu.RLock()
	if r.search != nil && r.search.gen == r.gen {
		r.mu.RUnlock()
		return r.search
	}
	gen, defs := r.gen, r.listLocked()
	r.mu.RUnlock()
	docs := make([]bm25.Doc, len(defs))
	for i, d := range defs {
		names, descs := schemaArguments(d.InputSchema)
		docs[i] = bm25.Doc{{d.Name}, names, {d.Description}, descs}
	}
	r.search = &searchIndex{gen: gen, defs: defs, ix: bm25.New(toolFieldWeights, docs)}
	return r.search
}

// schemaArguments returns the names and descriptions of the top-level properties
// of an input schema, names sorted. A schema that is not an object with
// properties has none.
func schemaArguments(schema json.RawMessage) (names, descs []string) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, nil
	}
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		var p struct {
			Description string `json:"description"`
		}
		if json.Unmarshal(s.Properties[name], &p) == nil && p.Description != "" {
			descs = append(descs, p.Description)
		}
	}
	return names, descs
}
