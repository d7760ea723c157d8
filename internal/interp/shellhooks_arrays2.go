package interp

func init() {
	shellHooks = append(shellHooks,
		// Associative arrays list their keys and values in bash's hash
		// order (expand/arrays2.go), not sorted.
		shellHook{"expand/expand.go", "return slices.Sorted(maps.Values(vr.Map)), lit == \"*\", true",
			"return skAssocOrderedValues(vr.Map), lit == \"*\", true", 0},
		shellHook{"expand/expand.go", "return skFields(slices.Collect(maps.Keys(vr.Map))), nil",
			"return skFields(SkillrunAssocKeys(vr.Map)), nil", 0},
		shellHook{"expand/expand.go", "\t\"iter\"\n\t\"maps\"\n", "\t\"iter\"\n", 0},
		shellHook{"expand/param.go", "strs = slices.Sorted(maps.Keys(vr.Map))", "strs = SkillrunAssocKeys(vr.Map)", 0},
		shellHook{"expand/param.go", "strs := slices.Sorted(maps.Values(vr.Map))", "strs := skAssocOrderedValues(vr.Map)", 0},
		// declare -A of an indexed array (and -a of an associative
		// one) is an error that keeps the variable (interp/arrays2.go).
		shellHook{"interp/runner.go", "\t\t\tvr := r.lookupVar(name)\n\t\t\tif as.Naked {\n",
			"\t\t\tif r.skDeclConvert(cm.Pos(), name, as, valType, local && !global) {\n\t\t\t\tif r.skAbort {\n\t\t\t\t\tbreak assignLoop\n\t\t\t\t}\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tvr := r.lookupVar(name)\n\t\t\tif as.Naked {\n", 0},
		// An error that abandons a command line inside eval ends the
		// eval only, with status 1, as in bash.
		shellHook{"interp/builtin.go", "\t\tr.stmts(ctx, file.Stmts)\n\t\texit = r.exit\n",
			"\t\tr.stmts(ctx, file.Stmts)\n\t\tif r.skAbort {\n\t\t\tr.skAbort = false\n\t\t\tr.exit = exitStatus{code: 1}\n\t\t}\n\t\texit = r.exit\n", 0},
		// Tildes after ':' in an assignment's value (and in an indexed
		// array's [k]=v) are expanded, as bash does.
		shellHook{"interp/vars.go", "\t\ts := r.literal(as.Value)\n", "\t\ts := r.literal(expand.SkillrunAssignTildes(r.ecfg, as.Value))\n", 0},
		shellHook{"interp/vars.go", "index, r.literal(elem.Value))", "index, r.literal(expand.SkillrunAssignTildes(r.ecfg, elem.Value)))", 0},
		// ${a[@]:1:-3}: a negative length fails the command.
		shellHook{"expand/param.go", "func (cfg *Config) paramExp(pe *syntax.ParamExp) (string, error) {\n",
			"func (cfg *Config) paramExp(pe *syntax.ParamExp) (string, error) {\n\tif err := cfg.skSliceCheck(pe); err != nil {\n\t\treturn \"\", err\n\t}\n", 0},
		shellHook{"expand/expand.go", "func (cfg *Config) quotedElemFields(pe *syntax.ParamExp) ([]string, error) {\n",
			"func (cfg *Config) quotedElemFields(pe *syntax.ParamExp) ([]string, error) {\n\tif err := cfg.skSliceCheck(pe); err != nil {\n\t\treturn nil, err\n\t}\n", 0},
		shellHook{"expand/expand.go", "func (cfg *Config) unquotedElemFields(pe *syntax.ParamExp) ([]string, bool) {\n",
			"func (cfg *Config) unquotedElemFields(pe *syntax.ParamExp) ([]string, bool) {\n\tif cfg.skSliceCheck(pe) != nil {\n\t\treturn nil, false // paramExp reports it\n\t}\n", 0},
		// a[i]+=(...) is an error that assigns nothing.
		shellHook{"interp/runner.go", "\t\t\t\tname, vr := r.assignVal(name, prev, as, \"\")\n\t\t\t\tr.setVarWithIndex(prev, name, as.Index, vr)\n",
			"\t\t\t\tif r.skListToElem(as.Pos(), as) {\n\t\t\t\t\tcontinue\n\t\t\t\t}\n\t\t\t\tname, vr := r.assignVal(name, prev, as, \"\")\n\t\t\t\tr.setVarWithIndex(prev, name, as.Index, vr)\n", 0},
	)
}
