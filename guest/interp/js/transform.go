//go:build esbuild

package main

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// toCommonJS returns the code of file as CommonJS that goja runs (in the
// build with the esbuild tag, jsts.wasm, which skillrun runs for
// TypeScript, ES module scripts and scripts with syntax goja lacks;
// js.wasm, without esbuild, starts faster and smaller):
// TypeScript (.ts, .mts, .cts) with its types stripped, ES modules
// (import/export) rewritten to require and exports, for await and async
// generators lowered, all by esbuild's transform, inside the sandbox like
// everything the guest does. An ES module with top-level await has its
// body run in an async function after its imports. Plain CommonJS comes
// back unchanged (no cost for the common case).
func toCommonJS(file, code string) (string, error) {
	loader := api.LoaderJS
	switch strings.ToLower(path.Ext(file)) {
	case ".ts", ".mts", ".cts":
		loader = api.LoaderTS
	default:
		if !esmSyntax.MatchString(code) && !lowerSyntax.MatchString(code) && !strings.Contains(code, "import.meta") {
			return code, nil
		}
	}
	out, err := transform(file, code, loader, api.FormatCommonJS, api.ES2017)
	if err != nil && strings.Contains(err.Error(), "Top-level await") {
		var wrapped string
		if wrapped, err = wrapTopLevelAwait(file, code, loader); err == nil {
			out, err = transform(file, wrapped, api.LoaderJS, api.FormatCommonJS, api.ES2017)
		}
	}
	return out, err
}

func transform(file, code string, loader api.Loader, format api.Format, target api.Target) (string, error) {
	r := api.Transform(code, api.TransformOptions{
		Loader:     loader,
		Format:     format,
		Target:     target, // ES2017: what goja runs; newer syntax is lowered
		Sourcefile: file,
		Define: map[string]string{
			"import.meta.url":      importMetaURL,
			"import.meta.filename": "__filename",
			"import.meta.dirname":  "__dirname",
		},
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
		return "", errors.New(b.String())
	}
	return string(r.Code), nil
}

// wrapTopLevelAwait rewrites an ES module that awaits at its top level,
// which CommonJS cannot express: esbuild prints the module with one
// statement a line and its imports first; the imports stay, and the rest
// becomes the body of an async function called at once. Its rejection is
// an unhandled one, which ends the script as an uncaught error would. A
// module that also exports is refused: an importer could not wait for it.
func wrapTopLevelAwait(file, code string, loader api.Loader) (string, error) {
	esm, err := transform(file, code, loader, api.FormatESModule, api.ESNext)
	if err != nil {
		return "", err
	}
	var imports, body strings.Builder
	for line := range strings.Lines(esm) {
		switch {
		case strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "import{"):
			imports.WriteString(line)
		case strings.HasPrefix(line, "export "):
			return "", fmt.Errorf("%s: a module with top-level await that also exports cannot run here: skillrun runs ES modules as CommonJS (move the awaits into an async function)", file)
		default:
			body.WriteString(line)
		}
	}
	return imports.String() + "(async () => {\n" + body.String() + "\n})();\n", nil
}
