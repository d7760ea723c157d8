package interp

func init() {
	shellHooks = append(shellHooks,
		// $(( ... )) and (( ... )) that mvdan.cc/sh's parser rejects are
		// kept as text, parsed as arithmetic when they run, as bash does
		// (shellpatch/syntax/assignarith.go).
		shellHook{"syntax/parser.go", "\t\tar := &ArithmExp{Left: p.pos, Bracket: left == dollBrack}\n\t\told := p.preNested(arithmExpr)\n",
			"\t\tar := &ArithmExp{Left: p.pos, Bracket: left == dollBrack}\n\t\tif !ar.Bracket {\n\t\t\tif w, right, ok := p.skRawArithm(arithmExpr); ok {\n\t\t\t\tar.X, ar.Right = w, right\n\t\t\t\treturn ar\n\t\t\t}\n\t\t}\n\t\told := p.preNested(arithmExpr)\n", 0},
		shellHook{"syntax/parser.go", "\tar := &ArithmCmd{Left: p.pos}\n\told := p.preNested(arithmExprCmd)\n",
			"\tar := &ArithmCmd{Left: p.pos}\n\tif w, right, ok := p.skRawArithm(arithmExprCmd); ok {\n\t\tar.X, ar.Right = w, right\n\t\ts.Cmd = ar\n\t\treturn\n\t}\n\told := p.preNested(arithmExprCmd)\n", 0},
	)
}

func init() {
	shellHooks = append(shellHooks,
		// unset of a caller's local shows the variable it hid
		// (shellpatch/interp/assignarith.go).
		shellHook{"interp/builtin.go", "\t\t\t} else if vars && r.lookupVar(arg).IsSet() {\n\t\t\t\tr.delVar(arg)\n",
			"\t\t\t} else if vars && r.lookupVar(arg).IsSet() {\n\t\t\t\tr.skUnsetVar(arg)\n", 0},
	)
}

func init() {
	shellHooks = append(shellHooks,
		// ${a[@]: }: an empty slice offset is 0.
		shellHook{"syntax/parser.go", "pe.Slice.Offset = p.followArithm(colon, colonPos)", "pe.Slice.Offset = p.skSliceArithm(colonPos)", 0},
	)
}
