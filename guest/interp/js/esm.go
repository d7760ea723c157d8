package main

import "regexp"

// esmSyntax finds a top-level import or export statement: a module
// written as an ES module, which goja (CommonJS only) cannot load as it
// is. skillrun's host tells such scripts apart with the same pattern
// (internal/interp.IsESModule) to run them under the esbuild build.
var esmSyntax = regexp.MustCompile(`(?m)^\s*(import\s*[\w{*'"]|import\s*$|export\s+(default|const|let|var|function|class|async|\{|\*))`)
