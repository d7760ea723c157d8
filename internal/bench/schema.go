package bench

import _ "embed"

// ResultsSchema is the JSON Schema of results.json and result.json
// (schema/results.schema.json), for tools that read them.
//
//go:embed schema/results.schema.json
var ResultsSchema []byte
