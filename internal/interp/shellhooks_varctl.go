package interp

func init() {
	shellHooks = append(shellHooks,
		// ${x@op} and ${a[@]@op}: bash's @ operators, on each element of
		// a list (shellpatch/expand/varctl.go).
		shellHook{"expand/param.go", "\t\tcase syntax.OtherParamOps:\n\t\t\tswitch arg {\n",
			"\t\tcase syntax.OtherParamOps:\n\t\t\tif s, ok := cfg.skAtOp(arg, pe, name, orig, str, elems, indexAllElements, set, join); ok {\n\t\t\t\tstr = s\n\t\t\t\tbreak\n\t\t\t}\n\t\t\tswitch arg {\n", 0},
		shellHook{"expand/param.go", "\t\t\tif arg == \"Q\" {\n\t\t\t\treturn skQuoteElems(elems), nil\n\t\t\t}\n",
			"\t\t\treturn cfg.skAtElems(arg, pe, elems), nil\n", 0},
		// Bad substitutions fail when expanded, not when parsed
		// (shellpatch/syntax/varctl.go).
		shellHook{"syntax/nodes.go", "\tShort bool // $a instead of ${a}\n",
			"\tShort bool // $a instead of ${a}\n\n\t// SkBad is the text of an expansion that bash parses but fails to\n\t// expand, such as ${#x:1} (skillrun).\n\tSkBad string\n", 0},
		shellHook{"syntax/parser.go", "\tif p.tok != _EOF && (pe.Length || pe.Width || pe.IsSet) {\n",
			"\tif p.tok != _EOF && pe.Length && p.lang.in(langBashLike) {\n\t\treturn p.skBadSubst(pe, p.tok.String(), old)\n\t}\n\tif p.tok != _EOF && (pe.Length || pe.Width || pe.IsSet) {\n", 0},
		shellHook{"syntax/parser.go", "\t\tpe.Slice = &Slice{}\n\t\tcolonPos := p.pos\n",
			"\t\tif p.r == '}' && p.lang.in(langBashLike) {\n\t\t\treturn p.skBadSubst(pe, \":\", old)\n\t\t}\n\t\tpe.Slice = &Slice{}\n\t\tcolonPos := p.pos\n", 0},
		// ${x::} and ${x:i:}: an empty length is zero.
		shellHook{"syntax/parser.go", "\t\tif p.got(colon) {\n\t\t\tpe.Slice.Length = p.followArithm(colon, colonPos)\n\t\t}\n",
			"\t\tif p.got(colon) {\n\t\t\tif p.tok == rightBrace && p.lang.in(langBashLike) {\n\t\t\t\tpe.Slice.Length = skZeroArithm(colonPos)\n\t\t\t} else {\n\t\t\t\tpe.Slice.Length = p.followArithm(colon, colonPos)\n\t\t\t}\n\t\t}\n", 0},
		shellHook{"expand/param.go", "func (cfg *Config) paramExp(pe *syntax.ParamExp) (string, error) {\n",
			"func (cfg *Config) paramExp(pe *syntax.ParamExp) (string, error) {\n\tif pe.SkBad != \"\" {\n\t\treturn \"\", SkillrunCommandError{pe.SkBad + \": bad substitution\"}\n\t}\n", 0},
		// A tilde expanded to an empty $HOME is the empty string in words
		// that are not split ([[ ~ ]], x=~), not a literal tilde.
		shellHook{"expand/expand.go", "if prefix, rest := cfg.expandUser(s, len(wps) > 1); prefix != \"\" {\n",
			"if prefix, rest := cfg.expandUser(s, len(wps) > 1); prefix != \"\" || rest != s {\n", 0},
		// Without a home directory (WASI has none), HOME stays unset as
		// it would in bash without a passwd entry, so ~ stays itself;
		// mvdan.cc/sh set it empty, making ~ expand to nothing.
		shellHook{"interp/api.go", "\t\thome, _ := os.UserHomeDir()\n\t\tr.setVarString(\"HOME\", home)\n",
			"\t\tif home, err := os.UserHomeDir(); err == nil {\n\t\t\tr.setVarString(\"HOME\", home)\n\t\t}\n", 0},
		// for - in ...: bash fails the loop (status 1) before expanding
		// its words, and goes on.
		shellHook{"interp/runner.go", "\t\t\tname := y.Name.Value\n\t\t\titems := r.Params // for i; do ...\n",
			"\t\t\tname := y.Name.Value\n\t\t\tif !syntax.ValidName(name) {\n\t\t\t\tr.errf(\"`%s': not a valid identifier\\n\", name)\n\t\t\t\tr.exit.code = 1\n\t\t\t\tbreak\n\t\t\t}\n\t\t\titems := r.Params // for i; do ...\n", 0},
	)
}
