package main

import "github.com/spf13/pflag"

// addGrantFlags adds the flags that grant capabilities, in skill.toml's
// words, shared by run and session: --allow-KIND[=VALUE] for each kind,
// -A, the limits, --policy, --audit and --no-prompt.
func addGrantFlags(fl *pflag.FlagSet, f *runFlags) {
	for _, kind := range []string{"read", "write", "env", "net", "tools", "mcp", "skills"} {
		fl.Var(grantFlag{kind, &f.grants}, "allow-"+kind, "grant "+kind+" (no value: what the skill declares; or a value in skill.toml's words)")
		fl.Lookup("allow-" + kind).NoOptDefVal = noValue
	}
	fl.BoolVarP(&f.all, "allow-all", "A", false, "grant everything the skill declares, nothing more")
	fl.DurationVar(&f.timeout, "timeout", 0, "wall-clock limit of a script run, e.g. 10s (at most what the skill declares)")
	fl.StringVar(&f.memory, "memory", "", "memory limit of a script run, e.g. 64MiB")
	fl.StringVar(&f.output, "output", "", "stdout+stderr limit of a script run, e.g. 1MiB")
	fl.StringVar(&f.policy, "policy", "", "operator policy `FILE` (TOML) granting capabilities per skill")
	fl.StringVar(&f.audit, "audit", "", "append audit events (JSONL) to `FILE`")
	fl.BoolVar(&f.noPrompt, "no-prompt", false, "never ask in a terminal; deny what is not granted")
}
