package interp

// Hooks of field splitting (shellpatch/expand/split3.go).
func init() {
	shellHooks = append(shellHooks,
		// Unquoted ${!prefix@} and ${!a[@]}: one field per name or key.
		shellHook{"expand/expand.go", "\tif pe.Excl || pe.Length || pe.Width || pe.IsSet || pe.Repl != nil || pe.Exp != nil {\n\t\treturn nil, false\n\t}\n",
			"\tif elems, ok, _ := cfg.skExclElems(pe); ok {\n\t\treturn elems, true\n\t}\n\tif pe.Excl || pe.Length || pe.Width || pe.IsSet || pe.Repl != nil || pe.Exp != nil {\n\t\treturn nil, false\n\t}\n", 0},
		// shopt -u globskipdots: ".*" matches "." and "..".
		shellHook{"expand/expand.go", "type Config struct {\n",
			"type Config struct {\n\t// SkGlobDots is shopt -u globskipdots (skillrun).\n\tSkGlobDots bool\n\n", 0},
		shellHook{"interp/runner.go", "\tr.ecfg.ExtGlob = r.opts[optExtGlob]\n",
			"\tr.ecfg.ExtGlob = r.opts[optExtGlob]\n\tr.ecfg.SkGlobDots = !r.skShoptOn(\"globskipdots\")\n", 0},
		shellHook{"expand/expand.go", "\t\t\tnewMatches, err = cfg.globDir(base, dir, matcher, wantDir, newMatches)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n",
			"\t\t\tnewMatches, err = cfg.globDir(base, dir, matcher, wantDir, newMatches)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\tnewMatches = cfg.skGlobDots(part, dir, matcher, newMatches)\n", 0},
	)
}
