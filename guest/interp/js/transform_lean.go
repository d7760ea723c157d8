//go:build !esbuild

package main

import (
	"fmt"
	"path"
	"strings"
)

// toCommonJS of the lean build (js.wasm, without esbuild) runs CommonJS
// as it is and says what to do with TypeScript or an ES module, which
// only the esbuild build (jsts.wasm) transforms: skillrun picks that one
// when the script itself is TypeScript or an ES module, so this is a
// CommonJS script requiring one.
func toCommonJS(file, code string) (string, error) {
	switch strings.ToLower(path.Ext(file)) {
	case ".ts", ".mts", ".cts":
		return "", fmt.Errorf("%s is TypeScript, required from a CommonJS script: skillrun transforms TypeScript when the script it runs is TypeScript or an ES module (rename the entry to .ts or .mjs)", file)
	}
	if esmSyntax.MatchString(code) {
		return "", fmt.Errorf("%s is an ES module (import/export), required from a CommonJS script: skillrun transforms ES modules when the script it runs is one (rename the entry to .mjs)", file)
	}
	if lowerSyntax.MatchString(code) {
		return "", fmt.Errorf("%s uses for await or an async generator, required from a script that does not: skillrun lowers them when the script it runs uses them", file)
	}
	return code, nil
}
