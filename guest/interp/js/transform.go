//go:build esbuild

package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// toCommonJS returns the code of file as CommonJS that goja runs (in the
// build with the esbuild tag, jsts.wasm, which skillrun runs for
// TypeScript and ES module scripts; js.wasm, without esbuild, starts
// faster and smaller):
// TypeScript (.ts, .mts, .cts) with its types stripped, and ES modules
// (import/export) rewritten to require and exports, both by esbuild's
// transform, inside the sandbox like everything the guest does. Plain
// CommonJS comes back unchanged (no cost for the common case).
func toCommonJS(file, code string) (string, error) {
	loader := api.LoaderJS
	switch strings.ToLower(path.Ext(file)) {
	case ".ts", ".mts", ".cts":
		loader = api.LoaderTS
	default:
		if !esmSyntax.MatchString(code) {
			return code, nil
		}
	}
	r := api.Transform(code, api.TransformOptions{
		Loader:     loader,
		Format:     api.FormatCommonJS,
		Target:     api.ES2017, // what goja runs; newer syntax is lowered
		Sourcefile: file,
	})
	if len(r.Errors) > 0 {
		var b strings.Builder
		for i, m := range r.Errors {
			if i > 0 {
				b.WriteString("\n")
			}
			if m.Location != nil {
				fmt.Fprintf(&b, "%s:%d:%d: ", m.Location.File, m.Location.Line, m.Location.Column+1)
			}
			b.WriteString(m.Text)
		}
		return "", fmt.Errorf("%s", b.String())
	}
	return string(r.Code), nil
}
