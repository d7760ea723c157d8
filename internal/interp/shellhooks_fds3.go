package interp

// Hooks of here-documents and quoting (shellpatch/syntax/fds3.go,
// shellpatch/expand/fds3.go).
func init() {
	shellHooks = append(shellHooks,
		// A here-document delimiter may hold expansions; they are its
		// literal text, as in bash (cat <<${a}).
		shellHook{"syntax/parser.go", "\t\tp.quote, p.forbidNested = hdocWord, true\n", "\t\tp.quote = hdocWord\n", 0},
		shellHook{"syntax/parser.go", "\t\tp.quote, p.forbidNested = old, false\n\t\tif p.tok == _Newl {\n", "\t\tp.quote = old\n\t\tif p.tok == _Newl {\n", 0},
		shellHook{"syntax/parser.go", "\t\tquoted = true\n\t}\n\treturn buf, quoted\n}\n",
			"\t\tquoted = true\n\tdefault:\n\t\tbuf = skHdocWordPart(buf, wp)\n\t}\n\treturn buf, quoted\n}\n", 0},
		// The body's lexer stops at $ and `, so a delimiter line holding
		// them is read whole before the check for the delimiter.
		shellHook{"syntax/lexer.go", "\tstop := p.hdocStops[len(p.hdocStops)-1]\n\tfor ; ; r = p.rune() {\n\t\tswitch r {\n\t\tcase escNewl, '$':\n",
			"\tstop := p.hdocStops[len(p.hdocStops)-1]\n\tfor ; ; r = p.rune() {\n\t\tif len(p.litBs)-1 == lStart {\n\t\t\tr = p.skHdocStopLine(r, stop)\n\t\t}\n\t\tswitch r {\n\t\tcase escNewl, '$':\n", 0},
		// FUNCNAME (shellpatch/interp/fds3.go): the stack of the
		// functions being run, kept by call and copied into subshells.
		shellHook{"interp/api.go", "\tinFunc       bool\n",
			"\tinFunc       bool\n\tskFuncNames []string // skillrun: FUNCNAME, outermost first\n", 0},
		shellHook{"interp/api.go", "\t\tinFunc: r.inFunc,\n", "\t\tinFunc: r.inFunc,\n\t\tskFuncNames: r.skFuncNames,\n", 0},
		shellHook{"interp/runner.go", "\t\toldInFunc := r.inFunc\n\t\tr.inFunc = true\n",
			"\t\toldInFunc := r.inFunc\n\t\tr.inFunc = true\n\t\tdefer r.skPushFuncName(name)()\n", 0},
		shellHook{"interp/vars.go", "\tcase \"DIRSTACK\":\n", "\tcase \"FUNCNAME\":\n\t\tvr.Kind, vr.List = r.skFuncNameVar()\n\tcase \"DIRSTACK\":\n", 0},
	)
}
