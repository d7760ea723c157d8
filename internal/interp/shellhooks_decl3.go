package interp

func init() {
	shellHooks = append(shellHooks,
		// A compound command's failure does not itself trigger errexit:
		// bash checks the simple commands inside it, so a brace group
		// ending in a failed && list goes on (shellpatch/interp/decl3.go).
		// A failed redirection of a compound command still does.
		shellHook{"interp/runner.go", "\tif r.exit.ok() && st.Cmd != nil {\n\t\tr.cmd(ctx, st.Cmd)\n",
			"\tskRan := false\n\tif r.exit.ok() && st.Cmd != nil {\n\t\tskRan = true\n\t\tr.cmd(ctx, st.Cmd)\n", 0},
		shellHook{"interp/runner.go", "} else if !r.exit.ok() && !r.noErrExit {\n",
			"} else if !r.exit.ok() && !r.noErrExit && !(skRan && skErrExitCompound(st.Cmd)) {\n", 0},
		// A subshell in a condition (if, while, && lists) keeps errexit
		// ignored, even if it runs set -e itself.
		shellHook{"interp/api.go", "\t\tinFunc: r.inFunc,\n\t\tinSource: r.inSource,\n\t}",
			"\t\tinFunc: r.inFunc,\n\t\tinSource: r.inSource,\n\t\tnoErrExit: r.noErrExit,\n\t}", 0},
	)
}
