package interp

func init() {
	shellHooks = append(shellHooks,
		// [k]+=v in an array literal appends v to element k
		// (shellpatch/syntax/lit4.go, shellpatch/interp/lit4.go).
		shellHook{"syntax/nodes.go", "type ArrayElem struct {\n\tIndex    ArithmExpr\n\tValue    *Word\n",
			"type ArrayElem struct {\n\tIndex    ArithmExpr\n\tValue    *Word\n\t// SkAppend is [k]+=v: v is appended to element k (skillrun).\n\tSkAppend bool\n", 0},
		shellHook{"syntax/parser.go", "\t\t\t\tp.follow(left, `[x]`, assgn)\n\t\t\t}\n\t\t\tif ae.Value = p.getWord(); ae.Value == nil {\n",
			"\t\t\t\tif ae.SkAppend = p.skArrayAppendOp(); !ae.SkAppend {\n\t\t\t\t\tp.follow(left, `[x]`, assgn)\n\t\t\t\t}\n\t\t\t}\n\t\t\tif ae.Value = p.getWord(); ae.SkAppend {\n\t\t\t\tae.Value = skTrimAppend(ae.Value)\n\t\t\t}\n\t\t\tif ae.Value == nil && !ae.SkAppend {\n", 0},
		shellHook{"syntax/printer.go", "\t\tif p.wroteIndex(el.Index) {\n\t\t\tp.w.WriteByte('=')\n",
			"\t\tif p.wroteIndex(el.Index) {\n\t\t\tif el.SkAppend {\n\t\t\t\tp.w.WriteByte('+')\n\t\t\t}\n\t\t\tp.w.WriteByte('=')\n", 0},
		shellHook{"interp/vars.go", "index, r.literal(expand.SkillrunAssignTildes(r.ecfg, elem.Value)))",
			"index, r.skElemValue(list, indexes, index, elem))", 0},
		// a[]=v and a[i]=(list) are errors when they run, not when the
		// script is parsed: status 1 and the command line abandoned.
		shellHook{"syntax/nodes.go", "\tArray  *ArrayExpr // =(arr)\n}\n",
			"\tArray  *ArrayExpr // =(arr)\n\n\t// SkBad is the error of an assignment bash parses but fails to\n\t// run, such as a[]=v (skillrun).\n\tSkBad string\n}\n", 0},
		shellHook{"syntax/parser.go", "\t\tas.Index = p.eitherIndex()\n\t\tif p.spaced || p.stopToken() {\n",
			"\t\tif p.r == ']' && p.lang.in(langBashLike) {\n\t\t\tas.Index, as.SkBad = p.skEmptyIndex(), as.Name.Value+\"[]: bad array subscript\"\n\t\t} else {\n\t\t\tas.Index = p.eitherIndex()\n\t\t}\n\t\tif p.spaced || p.stopToken() {\n", 0},
		shellHook{"syntax/parser.go", "\t\tif p.tok == assgnParen {\n\t\t\tif !p.lang.in(LangZsh) {\n",
			"\t\tif p.tok == assgnParen {\n\t\t\tif p.lang.in(langBashLike) {\n\t\t\t\tas.SkBad = skListToElem(as)\n\t\t\t} else if !p.lang.in(LangZsh) {\n", 0},
		shellHook{"interp/runner.go", "\t\t\tfor _, as := range cm.Assigns {\n\t\t\t\tname := as.Name.Value\n\n",
			"\t\t\tfor _, as := range cm.Assigns {\n\t\t\t\tif as.SkBad != \"\" {\n\t\t\t\t\tr.skExpandErr(expand.SkillrunCommandError{Msg: as.SkBad})\n\t\t\t\t\tbreak\n\t\t\t\t}\n\t\t\t\tname := as.Name.Value\n\n", 0},
		// ${a[0][0]} and ${a[]}: bad substitutions when expanded
		// (shellpatch/syntax/varctl.go).
		shellHook{"syntax/parser.go", "\t\tp.rune()\n\t\tpe.Index = p.eitherIndex()\n\t}\n\ttokRune := p.r\n",
			"\t\tp.rune()\n\t\tif p.r == ']' && p.lang.in(langBashLike) {\n\t\t\treturn p.skBadSubst(pe, \"[\", old)\n\t\t}\n\t\tpe.Index = p.eitherIndex()\n\t}\n\tif pe.Index != nil && p.r == '[' && p.lang.in(langBashLike) {\n\t\treturn p.skBadSubst(pe, \"\", old)\n\t}\n\ttokRune := p.r\n", 0},
		// declare a[]=v fails that argument, with status 1.
		shellHook{"interp/runner.go", "for as := range r.flattenAssigns(cm.Args) {\n",
			"for as := range r.flattenAssigns(cm.Args) {\n\t\t\tif as.SkBad != \"\" {\n\t\t\t\tr.errf(\"%s\\n\", as.SkBad)\n\t\t\t\tr.exit.code = 1\n\t\t\t\tcontinue\n\t\t\t}\n", 0},
	)
}
