package interp

func init() {
	shellHooks = append(shellHooks,
		// The descriptors a simple command's word expansions see: bash
		// expands the words before it applies the command's redirections.
		shellHook{"interp/api.go", "\tskOpt  skOptState // skillrun: traps and bash's options\n",
			"\tskOpt  skOptState // skillrun: traps and bash's options\n\tskOuter *skOuterIO // skillrun: descriptors before a simple command's redirections\n", 0},
		// Remember them before a statement applies its redirections.
		shellHook{"interp/runner.go", "var closers []io.Closer\n\tfor _, rd := range st.Redirs {\n",
			"var closers []io.Closer\n\tdefer r.skOuterEnd(r.skOuterBegin(st, oldIn, oldErr, oldSK))\n\tfor _, rd := range st.Redirs {\n", 0},
		// A command substitution in the words runs with them.
		shellHook{"interp/runner.go", "r2 := r.subshell(false)\n\t\t\tr2.stdout = w\n\t\t\tr2.stmts(ctx, cs.Stmts)\n",
			"r2 := r.subshell(false)\n\t\t\tr.skOuterApply(r2)\n\t\t\tr2.stdout = w\n\t\t\tr2.stmts(ctx, cs.Stmts)\n", 0},
		// A declaration expands all its arguments before it assigns any:
		// in `export A=1 b=$A`, b gets A's old value.
		shellHook{"interp/runner.go", "for as := range r.flattenAssigns(cm.Args) {\n",
			"for as := range r.skExpandFirst(r.flattenAssigns(cm.Args)) {\n", 0},
		// An alias that makes a command a declaration (alias e=export)
		// makes it one: bash expands aliases as it parses, so `e x=$v`
		// assigns $v whole, as `export x=$v` does.
		shellHook{"interp/runner.go", "args := r.skAliases(cm.Args)\n",
			"args := r.skAliases(cm.Args)\n\t\tif r.skAliasDecl(ctx, cm, args) {\n\t\t\tbreak\n\t\t}\n", 0},
	)
}
