package interp

// Hooks of word expansion (shellpatch/expand/words.go).
func init() {
	shellHooks = append(shellHooks,
		// "-$@-": one field per argument, joined to the text around.
		shellHook{"expand/expand.go", "\t\tcase *syntax.DblQuoted:\n\t\t\tif len(wp.Parts) == 1 {\n",
			"\t\tcase *syntax.DblQuoted:\n\t\t\tif ok, empty, err := cfg.skQuotedLists(wp.Parts, &curField, flush); err != nil {\n\t\t\t\treturn nil, err\n\t\t\t} else if ok {\n\t\t\t\tallowEmpty = allowEmpty || !empty\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tif len(wp.Parts) == 1 {\n", 0},
		// ${v:-"a b" c}: quoted parts of the chosen word are not split.
		shellHook{"expand/expand.go", "\t\t\t\tcontinue\n\t\t\t}\n\t\t\tval, err := cfg.paramExp(wp)\n",
			"\t\t\t\tcontinue\n\t\t\t}\n\t\t\tif ok, quoted, err := cfg.skAltWordFields(wp, &curField, splitAdd, flush); err != nil {\n\t\t\t\treturn nil, err\n\t\t\t} else if ok {\n\t\t\t\tallowEmpty = allowEmpty || quoted\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tval, err := cfg.paramExp(wp)\n", 0},
		// $'\cA': control characters.
		shellHook{"expand/expand.go", "Format(cfg, fp.val, nil)", "Format(cfg, skCtrlEscapes(fp.val), nil)", 2},
		// {X,,Y}: empty alternatives elided; {a,~}/b: tilde expanded.
		shellHook{"expand/braces.go", "return yield(&syntax.Word{Parts: left})", "return yield(skBraceWord(left))", 0},
		shellHook{"expand/braces.go", "w.Parts = slices.Concat(left, w.Parts)", "w.Parts = skBraceWord(slices.Concat(left, w.Parts)).Parts", 0},
		// "$\<newline>?" is $?: the continuation goes before the dollar's use.
		shellHook{"syntax/lexer.go", "case '$':\n\t\tswitch p.rune() {", "case '$':\n\t\tswitch p.skRuneAfterDollar() {", 2},
		// [C\-D]: a quoted dash in a bracket expression is no range.
		shellHook{"expand/expand.go", "sb.WriteString(pattern.QuoteMeta(part.val, 0))", "sb.WriteString(skQuoteMeta(part.val))", 2},
	)
}

func init() {
	shellHooks = append(shellHooks,
		// A backslash outside quotes in a word that is not split quotes
		// the next character (shellpatch/expand/escapes.go).
		shellHook{"expand/expand.go", "\tcfg = prepareConfig(cfg)\n\tfield, err := cfg.wordField(word.Parts, quoteNone)\n\tif err != nil {\n\t\treturn \"\", err\n\t}\n\treturn cfg.fieldJoin(field), nil\n",
			"\tcfg = prepareConfig(cfg)\n\tfield, err := cfg.wordField(skUnescapeLits(word.Parts), quoteNone)\n\tif err != nil {\n\t\treturn \"\", err\n\t}\n\treturn cfg.fieldJoin(field), nil\n", 0},
		// "declare $x" splits the expanded word at "=": the value is
		// text, not shell source to unescape again.
		shellHook{"interp/runner.go", "\t\t\t\t\tas.Value = &syntax.Word{Parts: []syntax.WordPart{\n\t\t\t\t\t\t&syntax.Lit{Value: val},\n",
			"\t\t\t\t\tas.Value = &syntax.Word{Parts: []syntax.WordPart{\n\t\t\t\t\t\t&syntax.SglQuoted{Value: val},\n", 0},
	)
}
