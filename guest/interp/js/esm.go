package main

import "regexp"

// esmSyntax finds a top-level import or export statement: a module
// written as an ES module, which goja (CommonJS only) cannot load as it
// is. skillrun's host tells such scripts apart with the same pattern
// (internal/interp.IsESModule) to run them under the esbuild build.
var esmSyntax = regexp.MustCompile(`(?m)^\s*(import\s*[\w{*'"]|import\s*$|export\s+(default|const|let|var|function|class|async|\{|\*))`)

// lowerSyntax finds syntax goja does not run and esbuild lowers to what
// it does: for await, async generators. The host's pattern is the same
// (internal/interp.NeedsESBuild).
var lowerSyntax = regexp.MustCompile(`\bfor\s+await\s*\(|\basync\s+function\s*\*|\basync\s*\*\s*[\w$\[]`)

// importMetaURL is the name esbuild gives import.meta.url in the
// CommonJS it writes; the module wrapper defines it (main.go).
const importMetaURL = "__skillrun_import_meta_url"
