package interp

func init() {
	shellHooks = append(shellHooks,
		// kill: WASI has no signals; the shell queues those sent to $$
		// (shellpatch/interp/sig4.go).
		shellHook{"interp/builtin.go", "case \"trap\":\n", "case \"kill\":\n\t\treturn r.skKill(pos, args)\n\tcase \"trap\":\n", 0},
		// The outermost Runner is the process $$ names.
		shellHook{"interp/api.go", "\tr.fillExpandConfig(ctx)\n\tr.exit = exitStatus{}\n\tr.filename = \"\"\n",
			"\tctx, skRelease := r.skSigClaim(ctx)\n\tdefer skRelease()\n\tr.fillExpandConfig(ctx)\n\tr.exit = exitStatus{}\n\tr.filename = \"\"\n", 0},
		// Queued signals are taken after each command, as bash runs traps.
		shellHook{"interp/runner.go", "\t\tr.stmtSync(ctx, st)\n\t}\n\tr.lastExit = r.exit\n}\n",
			"\t\tr.stmtSync(ctx, st)\n\t}\n\tr.lastExit = r.exit\n\tr.skSigDeliver(ctx)\n}\n", 0},
		// A ( ) subshell is a process of its own: kill $$ in it signals
		// the shell, and its traps run for signals sent to a background
		// job it is the body of, ( trap ... ) & (shellpatch/interp/sig4.go).
		shellHook{"interp/runner.go", "\tcase *syntax.Subshell:\n\t\tr2 := r.subshell(false)\n\t\tr2.stmts(ctx, cm.Stmts)\n",
			"\tcase *syntax.Subshell:\n\t\tr2 := r.subshell(false)\n\t\tskCtx, skRelease := r.skSubshellProc(ctx, r2)\n\t\tr2.stmts(skCtx, cm.Stmts)\n\t\tskRelease()\n", 0},
		// A background job is a process of its own for kill.
		shellHook{"interp/runner.go", "\t\tr.bgProcs = append(r.bgProcs, bg)\n\t\tgo func() {\n\t\t\tr2.Run(ctx, &st2)\n",
			"\t\tr.bgProcs = append(r.bgProcs, bg)\n\t\tbgCtx := r.skBackground(ctx, bg.done)\n\t\tgo func() {\n\t\t\tr2.Run(bgCtx, &st2)\n\t\t\tskJobEnd(bgCtx, r2)\n", 0},
	)
}
