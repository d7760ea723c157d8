package interp

func init() {
	shellHooks = append(shellHooks,
		// Pipelines run as bash runs them, setting PIPESTATUS
		// (shellpatch/interp/control.go).
		shellHook{"interp/runner.go", "case syntax.Pipe, syntax.PipeAll:\n\t\t\tpr, pw, err := newPipe()\n",
			"case syntax.Pipe, syntax.PipeAll:\n\t\t\tr.skPipeline(ctx, cm)\n\t\t\treturn\n\t\t\tpr, pw, err := newPipe()\n", 0},
		// PIPESTATUS after a statement that is not a pipeline.
		shellHook{"interp/runner.go", "\tif r.exit.ok() && st.Cmd != nil {\n\t\tr.cmd(ctx, st.Cmd)\n\t}\n",
			"\tif r.exit.ok() && st.Cmd != nil {\n\t\tr.cmd(ctx, st.Cmd)\n\t}\n\tr.skStmtPipeStatus(st)\n", 0},
		// The depth of loops, for break and continue counts.
		shellHook{"interp/api.go", "\tinLoop       bool\n", "\tinLoop       bool\n\tskLoops      int // skillrun: loops the current command is in\n", 0},
		shellHook{"interp/runner.go", "\toldInLoop := r.inLoop\n\tr.inLoop = true\n\tdefer func() { r.inLoop = oldInLoop }()\n",
			"\toldInLoop := r.inLoop\n\tr.inLoop = true\n\tr.skLoops++\n\tdefer func() { r.inLoop = oldInLoop; r.skLoops-- }()\n", 0},
		// A pending break or continue skips the rest of the loop's body,
		// nested commands included, not just its next statements.
		shellHook{"interp/runner.go", "if !r.handlingTrap && (r.exit.returning || r.exit.exiting) {\n",
			"if !r.handlingTrap && (r.exit.returning || r.exit.exiting || r.breakEnclosing > 0 || r.contnEnclosing > 0) {\n", 0},
		// A function's body is in no loop: break there breaks none of
		// its caller's.
		shellHook{"interp/runner.go", "\t\toldInFunc := r.inFunc\n\t\tr.inFunc = true\n",
			"\t\toldInFunc := r.inFunc\n\t\tr.inFunc = true\n\t\toldLoops := r.skLoops\n\t\tr.skLoops = 0\n\t\tdefer func() { r.skLoops = oldLoops }()\n", 0},
		// break and continue in a while or until condition.
		shellHook{"interp/runner.go", "\t\t\tr.stmts(ctx, cm.Cond)\n\t\t\tr.noErrExit = oldNoErrExit\n\n\t\t\tstop := r.exit.ok() == cm.Until\n",
			"\t\t\tbroken, again := r.skLoopCond(ctx, cm.Cond)\n\t\t\tr.noErrExit = oldNoErrExit\n\t\t\tif broken {\n\t\t\t\tbreak\n\t\t\t} else if again {\n\t\t\t\tcontinue\n\t\t\t}\n\n\t\t\tstop := r.exit.ok() == cm.Until\n", 0},
		shellHook{"interp/builtin.go", "case \"break\", \"continue\":\n\t\tif !r.inLoop {\n",
			"case \"break\", \"continue\":\n\t\treturn r.skBreak(pos, name, args)\n\t\tif !r.inLoop {\n", 0},
		// return: bash's status 2 outside functions, and the last
		// command's status without an argument.
		shellHook{"interp/builtin.go", "return failf(1, \"return: can only be done from a func or sourced script\\n\")",
			"return failf(2, \"return: can only `return' from a function or sourced script\\n\")", 0},
		shellHook{"interp/builtin.go", "\t\tswitch len(args) {\n\t\tcase 0:\n\t\tcase 1:\n\t\t\tn, err := strconv.Atoi(args[0])\n\t\t\tif err != nil {\n\t\t\t\treturn failf(2, \"invalid return",
			"\t\tswitch len(args) {\n\t\tcase 0:\n\t\t\texit.code = r.lastExit.code\n\t\tcase 1:\n\t\t\tn, err := strconv.Atoi(args[0])\n\t\t\tif err != nil {\n\t\t\t\treturn failf(2, \"invalid return", 0},
		// A subshell of a function can return from it, ending only the
		// subshell.
		shellHook{"interp/api.go", "\t\tskOpt: r.skOpt.inherit(),\n\t}", "\t\tskOpt: r.skOpt.inherit(),\n\t\tinFunc: r.inFunc,\n\t\tinSource: r.inSource,\n\t}", 0},
		shellHook{"interp/runner.go", "\t\tr2.stmts(ctx, cm.Stmts)\n\t\tr2.exit.exiting = false // subshells don't exit the parent shell\n\t\tr.exit = r2.exit\n",
			"\t\tr2.stmts(ctx, cm.Stmts)\n\t\tr2.exit.exiting = false // subshells don't exit the parent shell\n\t\tr2.exit.returning = false\n\t\tr.exit = r2.exit\n", 0},
	)
}
