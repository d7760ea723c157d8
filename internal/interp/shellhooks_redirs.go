package interp

// Hooks of redirections and failglob (shellpatch/interp/redirs.go,
// shellpatch/expand/redirs.go).
func init() {
	shellHooks = append(shellHooks,
		// A redirection's target is expanded once, as bash expands it:
		// split, globbed, and ambiguous when not one field.
		shellHook{"interp/runner.go", "func (r *Runner) redir(ctx context.Context, rd *syntax.Redirect) (io.Closer, error) {\n",
			"func (r *Runner) redir(ctx context.Context, rd *syntax.Redirect) (io.Closer, error) {\n\trd, err := r.skRedirWord(rd)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n", 0},
		shellHook{"interp/runner.go", "\t\tif err != nil {\n\t\t\tif !r.exit.fatalExit {\n\t\t\t\t// A fatal error from a handler is reported by [Runner.Run].\n",
			"\t\tif err != nil {\n\t\t\tif !r.exit.fatalExit && !skQuietErr(err) {\n\t\t\t\t// A fatal error from a handler is reported by [Runner.Run].\n", 0},
		// What redirections leave behind (shellpatch/interp/redirs.go):
		// {var} descriptors stay open, n>&m- closes m, xtrace writes to
		// the stderr from before the statement's redirections.
		shellHook{"interp/api.go", "\tsk     skState // skillrun: descriptors above 2, process substitution\n",
			"\tsk     skState // skillrun: descriptors above 2, process substitution\n\tskRd   skRedirState // skillrun: what redirections leave\n", 0},
		shellHook{"interp/runner.go", "\t\tr.sk.fds = oldSK\n", "\t\tr.sk.fds = r.skRestoreFDs(oldSK)\n", 0},
		shellHook{"interp/runner.go", "oldIn, oldOut, oldErr := r.stdin, r.stdout, r.stderr\n\toldSK := r.skStmtStart()\n",
			"oldIn, oldOut, oldErr := r.stdin, r.stdout, r.stderr\n\toldSK := r.skStmtStart()\n\tr.skRd.traceErr = r.stderr\n", 0},
		shellHook{"interp/trace.go", "\t\toutput:    r.stderr,\n", "\t\toutput:    r.skTraceOut(),\n", 0},
		// shopt -s failglob: a pattern matching nothing fails the command.
		shellHook{"expand/expand.go", "type Config struct {\n",
			"type Config struct {\n\t// SkFailGlob is shopt -s failglob (skillrun).\n\tSkFailGlob bool\n\n", 0},
		shellHook{"interp/runner.go", "\tr.ecfg.ExtGlob = r.opts[optExtGlob]\n",
			"\tr.ecfg.ExtGlob = r.opts[optExtGlob]\n\tr.ecfg.SkFailGlob = r.skFailGlob()\n", 0},
		shellHook{"expand/expand.go", "\t\t\t\t\t} else if len(matches) > 0 || cfg.NullGlob {\n",
			"\t\t\t\t\t} else if len(matches) == 0 && cfg.SkFailGlob {\n\t\t\t\t\t\tyield(\"\", skNoMatch(cfg.fieldJoin(field)))\n\t\t\t\t\t\treturn true\n\t\t\t\t\t} else if len(matches) > 0 || cfg.NullGlob {\n", 0},
	)
}
