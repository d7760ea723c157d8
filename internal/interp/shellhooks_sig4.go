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
		// A background job is a process of its own for kill.
		shellHook{"interp/runner.go", "\t\tr.bgProcs = append(r.bgProcs, bg)\n\t\tgo func() {\n\t\t\tr2.Run(ctx, &st2)\n",
			"\t\tr.bgProcs = append(r.bgProcs, bg)\n\t\tbgCtx := skBackground(ctx, bg.done)\n\t\tgo func() {\n\t\t\tr2.Run(bgCtx, &st2)\n", 0},
	)
}
