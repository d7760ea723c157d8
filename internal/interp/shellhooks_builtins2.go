package interp

func init() {
	shellHooks = append(shellHooks,
		// The shell's command line (Params): -c, -s and -i show in $-
		// (shellpatch/interp/builtins2_invocation.go), and -o takes all of
		// bash's set -o names, not only those mvdan.cc/sh implements.
		shellHook{"interp/api.go", "\t\t\tenable := flag[0] == '-'\n\t\t\tif flag[1] != 'o' {\n",
			"\t\t\tif r.skInvocationFlag(flag) {\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tenable := flag[0] == '-'\n\t\t\tif flag[1] != 'o' {\n", 0},
		shellHook{"interp/api.go", "\t\t\topt := r.posixOptByName(value)\n\t\t\tif opt == nil {\n\t\t\t\treturn fmt.Errorf(\"invalid option: %q\", value)\n\t\t\t}\n\t\t\t*opt = enable\n",
			"\t\t\tif !r.skSetOptTo(value, enable) {\n\t\t\t\treturn fmt.Errorf(\"invalid option: %q\", value)\n\t\t\t}\n", 0},
		shellHook{"interp/vars.go", "r.skFlags()", "r.skFlagsInvoked()", 0},
		// time reports on the shell's standard error, as bash's does.
		shellHook{"interp/runner.go", "\t\t\tr.outf(\"\\n\")\n\t\t}\n\t\treal := time.Since(start)\n\t\tr.outf(format, \"real\", elapsedString(real, cm.PosixFormat))\n\t\t// TODO: can we do these?\n\t\tr.outf(format, \"user\", elapsedString(0, cm.PosixFormat))\n\t\tr.outf(format, \"sys\", elapsedString(0, cm.PosixFormat))\n",
			"\t\t\tr.errf(\"\\n\")\n\t\t}\n\t\treal := time.Since(start)\n\t\tr.errf(format, \"real\", elapsedString(real, cm.PosixFormat))\n\t\tr.errf(format, \"user\", elapsedString(0, cm.PosixFormat))\n\t\tr.errf(format, \"sys\", elapsedString(0, cm.PosixFormat))\n", 0},
		// An interactive shell abandons the command line on an unset
		// variable under set -u, and reads the next one.
		shellHook{"interp/runner.go", "\t\t// Make the error type reflect that.\n\t\tr.exit.code = 1\n\t\tr.exit.exiting = true\n",
			"\t\t// Make the error type reflect that.\n\t\tr.exit.code = 1\n\t\tr.exit.exiting = true\n\t\tr.skAbort = r.skInteractive()\n", 0},
		// mapfile: as in bash, a read error (a directory as input) ends the
		// input like EOF; only a line too long for the scanner fails.
		shellHook{"interp/builtin.go", "\t\tif err := scanner.Err(); err != nil {\n\t\t\treturn failf(2, \"%s: unable to read",
			"\t\tif err := scanner.Err(); errors.Is(err, bufio.ErrTooLong) {\n\t\t\treturn failf(2, \"%s: unable to read", 0},
		// Reset keeps what the command line set in skOpt (bash's options
		// mvdan.cc/sh lacks, $-'s c, i and s), as it keeps opts.
		shellHook{"interp/api.go", "\torigOpts   runnerOpts\n", "\torigOpts   runnerOpts\n\tskOrigOpt  skOptState // skillrun: skOpt as the command line set it\n", 0},
		shellHook{"interp/api.go", "\t\tr.origOpts = r.opts\n", "\t\tr.origOpts = r.opts\n\t\tr.skOrigOpt = r.skOpt.inherit()\n", 0},
		shellHook{"interp/api.go", "\t\torigOpts:   r.origOpts,\n", "\t\torigOpts:   r.origOpts,\n\t\tskOrigOpt:  r.skOrigOpt,\n\t\tskOpt:      r.skOrigOpt.inherit(),\n", 0},
	)
}
