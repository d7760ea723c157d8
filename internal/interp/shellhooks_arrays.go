package interp

func init() {
	shellHooks = append(shellHooks,
		// Expansions can warn as bash does and go on (expand/arrays.go).
		shellHook{"expand/expand.go", "type Config struct {\n",
			"type Config struct {\n\t// SkWarn writes a warning of bash's (skillrun).\n\tSkWarn func(pos syntax.Pos, msg string)\n\n", 0},
		shellHook{"interp/runner.go", "Env: expandEnv{r},\n", "Env: expandEnv{r},\n\t\tSkWarn: r.skWarn,\n", 0},
		// ${a[-5]} past the start of a: a warning, and nothing.
		shellHook{"expand/param.go", "return \"\", false, fmt.Errorf(\"negative array index\")", "return \"\", false, skBadSubscript{}", 0},
		shellHook{"expand/param.go", "str, set, err = cfg.varInd(vr, index)\n\t\tif err != nil {\n",
			"str, set, err = cfg.varInd(vr, index)\n\t\tif _, ok := err.(skBadSubscript); ok {\n\t\t\tcfg.skWarnf(pe.Pos(), \"%s: bad array subscript\", name)\n\t\t\terr = nil\n\t\t}\n\t\tif err != nil {\n", 0},
		// a[i]+=s appends to element i, not to element 0.
		shellHook{"interp/vars.go", "func (r *Runner) assignVal(name string, prev expand.Variable, as *syntax.Assign, valType string) (string, expand.Variable) {\n",
			"func (r *Runner) assignVal(name string, prev expand.Variable, as *syntax.Assign, valType string) (string, expand.Variable) {\n\tif as.Index != nil && as.Append && as.Value != nil {\n\t\treturn r.skElemAppend(name, prev, as)\n\t}\n", 0},
		// "${A[@]}" and "${!A[@]}" of an empty associative array are no
		// fields, not one empty field (a nil list read as no list).
		shellHook{"expand/expand.go", "\t\treturn elems, nil\n\t}\n\tif nodeLit(pe.Index) == \"@\" && !cfg.Env.Get(name).IsSet() {\n",
			"\t\treturn skFields(elems), nil\n\t}\n\tif nodeLit(pe.Index) == \"@\" && !cfg.Env.Get(name).IsSet() {\n", 0},
		shellHook{"expand/expand.go", "return slices.Collect(maps.Keys(vr.Map)), nil", "return skFields(slices.Collect(maps.Keys(vr.Map))), nil", 0},
		// unset 'a[i]': bash's keys, errors and status.
		shellHook{"interp/builtin.go", "\t\t\t\tr.unsetElem(name, sub)\n",
			"\t\t\t\tif r.skUnsetElem(pos, name, sub) {\n\t\t\t\t\texit.code = 1\n\t\t\t\t}\n", 0},
		// a[i]=v on an unset (or declared, empty) array sets the array:
		// [[ -v a[i] ]] and ${a[@]} then see it.
		shellHook{"interp/vars.go", "\tprev.Kind = expand.Indexed\n\tprev.List = list\n\tprev.Indexes = indexes\n\tr.setVar(name, prev)\n",
			"\tprev.Set = true\n\tprev.Kind = expand.Indexed\n\tprev.List = list\n\tprev.Indexes = indexes\n\tr.setVar(name, prev)\n", 0},
		shellHook{"interp/vars.go", "\t\tprev.Map[k] = valStr\n\t\tr.setVar(name, prev)\n",
			"\t\tprev.Map[k] = valStr\n\t\tprev.Set = true\n\t\tr.setVar(name, prev)\n", 0},
		// ${x@Q} and ${a[@]@Q} quote as bash does: each element on its
		// own, in single quotes ($'...' for control characters).
		shellHook{"expand/param.go", "\t\t\treturn cfg.caseConvElems(op, arg, elems), nil\n\t\t}\n\t}\n\treturn elems, nil\n}\n",
			"\t\t\treturn cfg.caseConvElems(op, arg, elems), nil\n\t\tcase syntax.OtherParamOps:\n\t\t\tif arg == \"Q\" {\n\t\t\t\treturn skQuoteElems(elems), nil\n\t\t\t}\n\t\t}\n\t}\n\treturn elems, nil\n}\n", 0},
		shellHook{"expand/param.go", "\t\t\t\tstr, err = syntax.Quote(str, syntax.LangBash)\n",
			"\t\t\t\tstr, err = skAtQ(str, elems, indexAllElements, set, join), nil\n", 0},
		// m=s and m+=s on an associative array are its element "0",
		// as $m is (mvdan.cc/sh set the key "" and ignored +=).
		shellHook{"interp/vars.go", "\t\tcase expand.Associative:\n\t\t\tindex = &syntax.Word{Parts: []syntax.WordPart{\n\t\t\t\t&syntax.DblQuoted{},\n\t\t\t}}\n",
			"\t\tcase expand.Associative:\n\t\t\tindex = &syntax.Word{Parts: []syntax.WordPart{\n\t\t\t\t&syntax.Lit{Value: \"0\"},\n\t\t\t}}\n", 0},
		shellHook{"interp/vars.go", "\tif as.Index != nil && as.Append && as.Value != nil {\n",
			"\tif as.Append && as.Value != nil && (as.Index != nil || prev.Kind == expand.Associative) {\n", 0},
	)
}
