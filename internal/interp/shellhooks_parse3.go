package interp

func init() {
	shellHooks = append(shellHooks,
		// "${u[@]:-${a[@]}}": a chosen word holding a list expansion gives
		// one field per element, as "${a[@]}" itself does.
		shellHook{"expand/expand.go", "\t\tcase *syntax.DblQuoted:\n\t\t\tif len(wp.Parts) == 1 {\n\t\t\t\tpe, _ := wp.Parts[0].(*syntax.ParamExp)\n",
			"\t\tcase *syntax.DblQuoted:\n\t\t\tif len(wp.Parts) == 1 {\n\t\t\t\tpe, _ := wp.Parts[0].(*syntax.ParamExp)\n\t\t\t\tif elems, ok, err := cfg.skOpListFields(pe); err != nil {\n\t\t\t\t\treturn nil, err\n\t\t\t\t} else if ok {\n\t\t\t\t\tfor i, elem := range elems {\n\t\t\t\t\t\tif i > 0 {\n\t\t\t\t\t\t\tflush()\n\t\t\t\t\t\t}\n\t\t\t\t\t\tcurField = append(curField, fieldPart{quote: quoteDouble, val: elem})\n\t\t\t\t\t}\n\t\t\t\t\tcontinue\n\t\t\t\t}\n", 0},
		// typeset s${dyn}+=foo, declare "$n[1]=v": a declaration word
		// made by expansion keeps its += and [index].
		shellHook{"interp/runner.go", "\t\t\t\tas.Name = &syntax.Lit{Value: name}\n\t\t\t\tif !ok {\n",
			"\t\t\t\tas.Name = &syntax.Lit{Value: name}\n\t\t\t\tif ok {\n\t\t\t\t\tskDynAssignName(as)\n\t\t\t\t}\n\t\t\t\tif !ok {\n", 0},
		// B=(b b) cmd: bash passes the array's text as a string; b[0]=2
		// cmd is refused when run (skInlineIndexed), not when parsed.
		shellHook{"syntax/parser.go", "\t\t\tif asgn.Index != nil || asgn.Array != nil {\n\t\t\t\tp.posErr(asgn.Pos(), \"inline variables cannot be arrays\")\n\t\t\t}\n",
			"\t\t\tskInlineArray(asgn)\n", 0},
		shellHook{"interp/runner.go", "\t\tfor _, as := range cm.Assigns {\n\t\t\tname := as.Name.Value\n\t\t\tprev := r.lookupVar(name)\n\t\t\t// Resolve any nameref",
			"\t\tfor _, as := range cm.Assigns {\n\t\t\tif r.skInlineIndexed(as) {\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tname := as.Name.Value\n\t\t\tprev := r.lookupVar(name)\n\t\t\t// Resolve any nameref", 0},
	)
}
