package interp

func init() {
	shellHooks = append(shellHooks,
		// builtins: getopts as bash's (shellpatch/interp/builtins_getopts.go);
		// history with bash's checks of its arguments, as it keeps none.
		shellHook{"interp/builtin.go", "case \"getopts\":\n", "case \"history\":\n\t\treturn r.skHistory(pos, args)\n\tcase \"getopts\":\n\t\treturn r.skGetopts(pos, args)\n", 0},
		// shift as bash's (shellpatch/interp/builtins_misc.go).
		shellHook{"interp/builtin.go", "case \"shift\":\n", "case \"shift\":\n\t\treturn r.skShift(pos, args)\n", 0},
		// eval and source take "--" and refuse other options.
		shellHook{"interp/builtin.go", "case \"eval\":\n", "case \"eval\":\n\t\tif !r.skNoOptions(pos, \"eval\", &args, \"eval [arg ...]\") {\n\t\t\treturn exitStatus{code: 2}\n\t\t}\n", 0},
		shellHook{"interp/builtin.go", "case \"source\", \".\":\n", "case \"source\", \".\":\n\t\tif !r.skNoOptions(pos, name, &args, name+\" filename [arguments]\") {\n\t\t\treturn exitStatus{code: 2}\n\t\t}\n", 0},
		// set -o posix: special builtins keep their prefix assignments,
		// come before functions and cannot be redefined as functions
		// (shellpatch/interp/builtins_posix.go).
		shellHook{"interp/runner.go", "\t\tr.call(ctx, cm.Args[0].Pos(), fields)\n\t\tfor _, restore := range restores {\n",
			"\t\tr.call(ctx, cm.Args[0].Pos(), fields)\n\t\tif r.skPosixSpecial(fields[0]) {\n\t\t\trestores = nil\n\t\t}\n\t\tfor _, restore := range restores {\n", 0},
		shellHook{"interp/runner.go", "name := args[0]\n\tif body := r.Funcs[name]; body != nil {\n", "name := args[0]\n\tif body := r.Funcs[name]; body != nil && !r.skPosixSpecial(name) {\n", 0},
		shellHook{"interp/runner.go", "\t\tr.setFunc(cm.Name.Value, cm.Body)\n", "\t\tif r.skSpecialFunc(cm.Name) {\n\t\t\tbreak\n\t\t}\n\t\tr.setFunc(cm.Name.Value, cm.Body)\n", 0},
	)
}
