package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// addGrantFlags adds the flags that grant capabilities, in skill.toml's
// words, shared by run and session: --allow-KIND[=VALUE] for each kind,
// -A, the limits, --policy, --audit and --no-prompt.
func addGrantFlags(fl *pflag.FlagSet, f *runFlags) {
	for _, kind := range capabilities.Kinds() {
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

// resolver is what the flags grant, as the library's one grant resolver:
// the --policy file (read once), the --allow-KIND flags, -A and the limit
// flags. The CLI only parses; capabilities.Resolver decides.
func (f *runFlags) resolver() (*capabilities.Resolver, error) {
	if f.res != nil {
		return f.res, nil
	}
	p, err := f.loadPolicy()
	if err != nil {
		return nil, err
	}
	// A negative --timeout is the resolver's to refuse (Resolve).
	r := &capabilities.Resolver{Policy: p, Flags: f.grants, All: f.all, Timeout: capabilities.Duration(f.timeout)}
	for _, l := range []struct {
		name, value string
		dst         *capabilities.Size
	}{{"--memory", f.memory, &r.Memory}, {"--output", f.output, &r.Output}} {
		if l.value == "" {
			continue
		}
		sz, err := capabilities.ParseSize(l.value)
		if err != nil {
			return nil, usageErr("%s=%s: %v", l.name, l.value, err)
		}
		*l.dst = sz
	}
	f.res = r
	return r, nil
}

// resolve is what the flags grant script of skill s (script "": the
// whole skill, see scripts.Resolve). A policy table by s's name that is
// not s's is reported on f.warn as an error, escaped: s gets only the
// policy's [default].
func (f *runFlags) resolve(s *skills.Skill, script string) (capabilities.Resolution, error) {
	r, err := f.resolver()
	if err != nil {
		return capabilities.Resolution{}, err
	}
	res, err := scripts.Resolve(s, script, r)
	if err != nil {
		return res, usageErr("%v", err)
	}
	reportUnbound(f.warn, res)
	return res, nil
}

// reportUnbound says on warn (nil: os.Stderr), as an error, why a policy
// table by the skill's name was not applied, if it was not.
func reportUnbound(warn io.Writer, res capabilities.Resolution) {
	if res.Unbound == nil {
		return
	}
	if warn == nil {
		warn = os.Stderr
	}
	fmt.Fprintf(warn, "skillrun: error: %s\n", termsafe.String(res.Unbound.Error()))
}
