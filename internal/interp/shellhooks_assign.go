package interp

func init() {
	shellHooks = append(shellHooks,
		// declare -ar, -Ag: every letter of a flag argument counts, where
		// mvdan.cc/sh went on to the next argument after the first.
		shellHook{"interp/runner.go", "\t\t\t\tcontinue assignLoop\n\t\t\t}\n",
			"\t\t\t}\n\t\t\tif fp.remaining == nil {\n\t\t\t\tcontinue assignLoop // a flag argument, all read\n\t\t\t}\n", 0},
		// typeset +x and export -n take the export attribute away; +r
		// and the other + forms are accepted and do nothing, as in bash.
		shellHook{"interp/runner.go", "\t\t\t\tcase \"-x\", \"-r\":\n\t\t\t\t\tmodes = append(modes, flag)\n\t\t\t\tcase \"-a\", \"-A\", \"-n\":\n\t\t\t\t\tvalType = flag\n",
			"\t\t\t\tcase \"-x\", \"-r\", \"+x\":\n\t\t\t\t\tmodes = append(modes, flag)\n\t\t\t\tcase \"-n\":\n\t\t\t\t\tif cm.Variant.Value == \"export\" {\n\t\t\t\t\t\tmodes = append(modes, \"+x\")\n\t\t\t\t\t} else {\n\t\t\t\t\t\tvalType = flag\n\t\t\t\t\t}\n\t\t\t\tcase \"-a\", \"-A\":\n\t\t\t\t\tvalType = flag\n\t\t\t\tcase \"+r\", \"+a\", \"+A\", \"+n\", \"+g\":\n", 0},
		shellHook{"interp/runner.go", "\t\t\t\tcase \"-r\":\n\t\t\t\t\tvr.ReadOnly = true\n",
			"\t\t\t\tcase \"-r\":\n\t\t\t\t\tvr.ReadOnly = true\n\t\t\t\tcase \"+x\":\n\t\t\t\t\tvr.Exported = false\n", 0},
		// declare, local and readonly of a bare name: a new local is
		// unset, a new variable declared without a value.
		shellHook{"interp/runner.go", "\t\t\tif as.Naked {\n\t\t\t\tif valType == \"-A\" {\n\t\t\t\t\tvr.Kind = expand.Associative\n\t\t\t\t} else {\n\t\t\t\t\tvr.Kind = expand.KeepValue\n\t\t\t\t}\n",
			"\t\t\tif as.Naked {\n\t\t\t\tvr = r.skNakedDecl(cm.Variant.Value, name, vr, valType, local && !global)\n", 0},
		// export and readonly of a caller's local change that local
		// (dynamic scope), not a new one of the current function.
		shellHook{"interp/runner.go", "\t\t\tr.setVar(name, vr)\n\t\t}\n\tcase *syntax.TimeClause:\n",
			"\t\t\tif !local && vr.Local && !r.skLocalHere(name) {\n\t\t\t\tvr.Local = false\n\t\t\t}\n\t\t\tr.setVar(name, vr)\n\t\t}\n\tcase *syntax.TimeClause:\n", 0},
		// A declaration builtin named by an expansion ($e x=$v) runs as
		// a declaration of its expanded, split words, as in bash.
		shellHook{"interp/builtin.go", "\tdefault:\n\t\treturn failf(2, \"%s: unsupported builtin\\n\", name)\n",
			"\tcase \"declare\", \"typeset\", \"export\", \"readonly\", \"local\":\n\t\treturn r.skDeclBuiltin(ctx, name, args)\n\tdefault:\n\t\treturn failf(2, \"%s: unsupported builtin\\n\", name)\n", 0},
	)
}
