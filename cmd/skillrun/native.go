package main

import (
	"fmt"
	"io"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/native"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// nativeTiers says which skills' scripts run under the native tier in a
// session or a shell: those --native names (names) and those whose own
// policy table grants it. A --native name that is no skill of the
// catalog (in where) is a usage error; where host processes cannot be
// confined, asking for the tier is refused (exit 125), never run
// unconfined. Nil when no skill is trusted with it.
func nativeTiers(names []string, pol *capabilities.Policy, catalog []*skills.Skill, where string, stderr io.Writer) (func(*skills.Skill) *scripts.NativeTier, error) {
	tiers := map[*skills.Skill]*scripts.NativeTier{}
	for _, name := range names {
		found := false
		for _, s := range catalog {
			if s.Name == name {
				tiers[s], found = &scripts.NativeTier{}, true
			}
		}
		if !found {
			return nil, usageErr("--native %s: no skill of that name in %s", termsafe.String(name), where)
		}
	}
	for _, s := range catalog {
		ng, err := pol.Native(s.Ref())
		if err != nil {
			fmt.Fprintf(stderr, "skillrun: %s\n", termsafe.String(err.Error()))
		}
		if ng != nil {
			tiers[s] = &scripts.NativeTier{Path: ng.Path}
		}
	}
	if len(tiers) == 0 {
		return nil, nil
	}
	if err := native.Check(); err != nil {
		return nil, &exitError{code: exitSandbox, err: err}
	}
	return func(s *skills.Skill) *scripts.NativeTier { return tiers[s] }, nil
}

// policyNative is the native tier of each skill whose own policy table
// trusts it with it (bound to the skill as its grants are), for a
// long-lived server whose skills change: nil for the others. Where host
// processes cannot be confined it is nil for all, said once on warn:
// those scripts stay in WebAssembly, never unconfined.
func policyNative(pol *capabilities.Policy, warn io.Writer) func(*skills.Skill) *scripts.NativeTier {
	if pol == nil || len(pol.Natives) == 0 {
		return nil
	}
	if err := native.Check(); err != nil {
		fmt.Fprintf(warn, "skillrun: the policy trusts skills with the native tier, which is not available here (%s): their scripts run in WebAssembly\n", termsafe.String(err.Error()))
		return nil
	}
	return func(s *skills.Skill) *scripts.NativeTier {
		ng, err := pol.Native(s.Ref())
		if err != nil || ng == nil {
			return nil
		}
		return &scripts.NativeTier{Path: ng.Path}
	}
}

// nativeTier is the native tier for skill s when the operator trusts it
// with it (--native, or native = true in its own policy table), or nil.
// Where host processes cannot be confined it refuses (exit 125): a
// script never runs unconfined.
func nativeTier(f *runFlags, s *skills.Skill, stderr io.Writer) (*scripts.NativeTier, error) {
	var tier *scripts.NativeTier
	if f.native {
		tier = &scripts.NativeTier{}
	}
	pol, err := f.loadPolicy()
	if err != nil {
		return nil, err
	}
	ng, err := pol.Native(s.Ref())
	if err != nil {
		fmt.Fprintf(stderr, "skillrun: %s\n", termsafe.String(err.Error()))
	}
	if ng != nil {
		tier = &scripts.NativeTier{Path: ng.Path}
	}
	if tier == nil {
		return nil, nil
	}
	if err := native.Check(); err != nil {
		return nil, &exitError{code: exitSandbox, err: err}
	}
	return tier, nil
}
