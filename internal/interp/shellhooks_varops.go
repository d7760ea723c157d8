package interp

func init() {
	shellHooks = append(shellHooks,
		// The words of ${x-word}, ${x:-word}, ${x+word} and ${x:+word}
		// are expanded only when used, and as bash does
		// (shellpatch/expand/varops.go): unquoted, the word's parts take
		// the expansion's place in the word being split.
		shellHook{"expand/expand.go", "\tfor i, wp := range wps {\n\t\tswitch wp := wp.(type) {\n\t\tcase *syntax.Lit:\n\t\t\ts := wp.Value\n\t\t\tif i == 0 {\n",
			"\tskParts, skSplitLits := wps, map[*syntax.Lit]bool(nil)\n\tfor i := 0; i < len(skParts); i++ {\n\t\twp := skParts[i]\n\t\tswitch wp := wp.(type) {\n\t\tcase *syntax.Lit:\n\t\t\ts := wp.Value\n\t\t\tif i == 0 {\n", 0},
		shellHook{"expand/expand.go", "\t\t\t\tcurField = append(curField,\n\t\t\t\t\tfieldPart{val: s[:i]},\n",
			"\t\t\t\tskLitAdd(s[:i], skSplitLits[wp], &curField, splitAdd)\n\t\t\t\tcurField = append(curField,\n", 0},
		shellHook{"expand/expand.go", "\t\t\tcurField = append(curField, fieldPart{val: s})\n\t\tcase *syntax.SglQuoted:\n",
			"\t\t\tskLitAdd(s, skSplitLits[wp], &curField, splitAdd)\n\t\tcase *syntax.SglQuoted:\n", 0},
		shellHook{"expand/expand.go", "\t\tcase *syntax.ParamExp:\n\t\t\tif elems, ok := cfg.unquotedElemFields(wp); ok {\n",
			"\t\tcase *syntax.ParamExp:\n\t\t\tif r, err := cfg.skOpTest(wp, false); err != nil {\n\t\t\t\treturn nil, err\n\t\t\t} else if r.word != nil {\n\t\t\t\tskParts, skSplitLits = skInsertOpWord(skParts, i, r.word, skSplitLits)\n\t\t\t\tcontinue\n\t\t\t} else if r.ok {\n\t\t\t\tfor j, elem := range r.elems {\n\t\t\t\t\tif j > 0 {\n\t\t\t\t\t\tflush()\n\t\t\t\t\t}\n\t\t\t\t\tsplitState = skSplitStart\n\t\t\t\t\tsplitAdd(elem)\n\t\t\t\t}\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tif elems, ok := cfg.unquotedElemFields(wp); ok {\n", 0},
		// Within double quotes, the word is double-quoted text.
		shellHook{"expand/expand.go", "\t\tcase *syntax.ParamExp:\n\t\t\tval, err := cfg.paramExp(wp)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\tfield = append(field, fieldPart{val: val})\n",
			"\t\tcase *syntax.ParamExp:\n\t\t\tif ql == quoteDouble {\n\t\t\t\tif r, err := cfg.skOpTest(wp, true); err != nil {\n\t\t\t\t\treturn nil, err\n\t\t\t\t} else if r.word != nil {\n\t\t\t\t\twfield, err := cfg.wordField(skDquoteOpWord(r.word), quoteDouble)\n\t\t\t\t\tif err != nil {\n\t\t\t\t\t\treturn nil, err\n\t\t\t\t\t}\n\t\t\t\t\tfield = append(field, wfield...)\n\t\t\t\t\tcontinue\n\t\t\t\t} else if r.ok {\n\t\t\t\t\tfield = append(field, fieldPart{val: r.joined})\n\t\t\t\t\tcontinue\n\t\t\t\t}\n\t\t\t}\n\t\t\tval, err := cfg.paramExp(wp)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\tfield = append(field, fieldPart{val: val})\n", 0},
		// "${list-word}": the list's fields when the word is not used.
		shellHook{"expand/expand.go", "func (cfg *Config) quotedElemFields(pe *syntax.ParamExp) ([]string, error) {\n",
			"func (cfg *Config) quotedElemFields(pe *syntax.ParamExp) ([]string, error) {\n\tif r, err := cfg.skOpTest(pe, true); err != nil {\n\t\treturn nil, err\n\t} else if r.ok {\n\t\treturn r.skQuotedOpElems(), nil\n\t}\n", 0},
		// Elsewhere (assignments), the word is a string, expanded only
		// when used.
		shellHook{"expand/param.go", "\t\tstr = join(elems)\n\tcase pe.Exp != nil:\n\t\targ, err := Literal(cfg, pe.Exp.Word)\n",
			"\t\tstr = join(elems)\n\tcase pe.Exp != nil:\n\t\tif r, err := cfg.skOpTest(pe, true); err != nil {\n\t\t\treturn \"\", err\n\t\t} else if r.word != nil {\n\t\t\treturn Literal(cfg, r.word)\n\t\t} else if r.ok {\n\t\t\treturn r.joined, nil\n\t\t}\n\t\targ, err := Literal(cfg, pe.Exp.Word)\n", 0},
		// ${v#pattern}, ${v,,pattern}: the word is a pattern.
		shellHook{"expand/param.go", "arg, err := Literal(cfg, pe.Exp.Word)\n", "arg, err := skOpArg(cfg, pe.Exp)\n", 2},
		// Removals match extended patterns (${x%*(a|b)}).
		shellHook{"expand/param.go", "func removePattern(str, pat string, fromEnd, shortest bool) string {\n\tvar mode pattern.Mode\n",
			"func removePattern(str, pat string, fromEnd, shortest bool) string {\n\tmode := pattern.ExtendedOperators\n", 0},
		// ${x////c}: the pattern is the slash.
		shellHook{"expand/param.go", "cfg.replaceElems(pe.Repl, elems)", "cfg.replaceElems(skSlashRepl(pe), elems)", 2},
	)
}
