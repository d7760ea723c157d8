package interp

// Hooks of field splitting (shellpatch/expand/split4.go).
func init() {
	shellHooks = append(shellHooks,
		// Unquoted list elements are joined with IFS's first character
		// and split as one string, as bash does: a non-blank IFS
		// character between two elements delimits empty ones. (The loop
		// of ${list-word} that shellhooks_varops.go adds later is not hooked.)
		shellHook{"expand/expand.go", "\t\t\t\t\tif j > 0 {\n\t\t\t\t\t\tflush()\n\t\t\t\t\t}\n\t\t\t\t\tsplitState = skSplitStart\n\t\t\t\t\tsplitAdd(elem)\n",
			"\t\t\t\t\tif j > 0 {\n\t\t\t\t\t\tcfg.skElemBreak(flush, splitAdd)\n\t\t\t\t\t} else {\n\t\t\t\t\t\tsplitState = skSplitStart\n\t\t\t\t\t}\n\t\t\t\t\tsplitAdd(elem)\n", 0},
		// "" is an empty quoted part of its field, as '' is: ""$A"" with
		// A=" x " gives the fields '', 'x' and ''.
		shellHook{"expand/expand.go", "\t\t\tallowEmpty = true\n\t\t\twfield, err := cfg.wordField(wp.Parts, quoteDouble)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n",
			"\t\t\tallowEmpty = true\n\t\t\twfield, err := cfg.wordField(wp.Parts, quoteDouble)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\tif len(wfield) == 0 {\n\t\t\t\tcurField = append(curField, fieldPart{quote: quoteDouble})\n\t\t\t}\n", 0},
	)
}
