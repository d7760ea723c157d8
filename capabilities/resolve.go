package capabilities

import (
	"fmt"
	"slices"
	"strings"
)

// Kinds returns the capability kinds granted by name, in skill.toml's
// order: the keys of a capabilities table that hold lists, and the KIND of
// --allow-KIND. It is the one list of them; the result is a fresh copy.
func Kinds() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return names
}

// A Resolver is what an operator grants, from every source skillrun reads,
// and answers for any skill what that skill gets. It is how `skillrun run`,
// `skillrun session` and `skillrun mcp` grant, so a program embedding
// skillrun grants exactly as the CLI does by filling in the same fields.
//
// The sources add up in this order: the policy's table for the skill (by
// its identity, see [Policy.Grant]), the --allow-KIND flags and -A (see
// [GrantFromFlags]), then the limit flags, which replace the policy's
// limits. Whatever they add up to, a skill gets only what it declares.
// The zero Resolver grants nothing.
type Resolver struct {
	// Policy is the operator's policy file; nil grants nothing.
	Policy *Policy
	// Flags are the --allow-KIND[=VALUE] flags, as typed.
	Flags []FlagGrant
	// All is -A: everything the skill declares, nothing more.
	All bool
	// Timeout, Memory and Output are the limit flags; zero leaves the
	// policy's (or the declared) limit.
	Timeout Duration
	Memory  Size
	Output  Size
}

// A Resolution is the answer of [Resolver.Resolve] for one skill (or one
// script of it): what it declares, what it is granted and why, and what
// it gets.
type Resolution struct {
	// Declared is what the skill (merged with the script, see [Merge])
	// declares: the most it can get.
	Declared Set
	// Granted is what the operator's sources grant it.
	Granted Set
	// Effective is Declared ∩ Granted ([Effective]): what it gets.
	Effective Set
	// Missing is what it declares and is not granted ([Missing]): what a
	// prompt would ask for, and what a denial names.
	Missing Set
	// Sources says where the grant came from, one entry per source that
	// granted something, as the operator wrote it: `policy
	// [skills."deploy"]`, "policy [default]", "-A", "--allow-read",
	// "--timeout=10s".
	Sources []string
	// Unbound, when not nil, says why the policy's table by this skill's
	// name was not applied (it wraps [errNotBound]): the table is another
	// skill's, and this one got only [default]. It is a warning for the
	// operator, not a failure of the resolution.
	Unbound error
}

// Resolve returns what the skill that ref describes gets when it declares
// declared. The error reports malformed flags and flags that grant this
// skill nothing ([GrantFromFlags]), each naming the flag; a policy table
// that is not this skill's is not an error but Resolution.Unbound.
func (r *Resolver) Resolve(ref SkillRef, declared Set) (Resolution, error) {
	res := Resolution{Declared: Merge(declared, Set{})}
	if r == nil {
		res.finish()
		return res, nil
	}
	var granted Set
	if r.Policy != nil {
		g, err := r.Policy.Grant(ref)
		res.Unbound = err
		granted = g
		if !g.IsZero() {
			if _, own := r.Policy.Skills[ref.Name]; own && err == nil {
				res.Sources = append(res.Sources, fmt.Sprintf("policy [skills.%q]", ref.Name))
			} else {
				res.Sources = append(res.Sources, "policy [default]")
			}
		}
	}
	fromFlags, err := GrantFromFlags(declared, r.All, r.Flags)
	if err != nil {
		return Resolution{}, err
	}
	if r.All {
		res.Sources = append(res.Sources, "-A")
	}
	for _, f := range r.Flags {
		res.Sources = append(res.Sources, f.String())
	}
	granted = Merge(granted, fromFlags)
	if r.Timeout < 0 {
		return Resolution{}, fmt.Errorf("--timeout must be positive, got %v", r.Timeout)
	}
	if r.Timeout > 0 {
		granted.Timeout = r.Timeout
		res.Sources = append(res.Sources, "--timeout="+r.Timeout.String())
	}
	if r.Memory > 0 {
		granted.Memory = r.Memory
		res.Sources = append(res.Sources, "--memory="+r.Memory.String())
	}
	if r.Output > 0 {
		granted.Output = r.Output
		res.Sources = append(res.Sources, "--output="+r.Output.String())
	}
	res.Granted = granted
	res.finish()
	return res, nil
}

// Workspace is what the operator grants over the whole workspace to tools
// that act for the operator, not for a skill (a session model's core
// workspace tools): the read and write flags, -A, and the policy's
// [default], as if a skill declared read and write of the workspace. The
// other flags name capabilities such tools do not have and are ignored.
func (r *Resolver) Workspace() Set {
	if r == nil {
		return Set{}
	}
	ws := []Path{{Root: RootWorkspace}}
	declared := Set{Read: ws, Write: ws}
	var flags []FlagGrant
	for _, g := range r.Flags {
		if g.Kind == "read" || g.Kind == "write" {
			flags = append(flags, g)
		}
	}
	granted, err := GrantFromFlags(declared, r.All, flags)
	if err != nil {
		granted = Set{} // a flag that grants nothing here grants these tools nothing
	}
	if r.Policy != nil {
		granted = Merge(granted, Effective(declared, r.Policy.Default))
	}
	return Set{Read: granted.Read, Write: granted.Write}
}

// Allow returns the resolution with more granted, as when the operator
// answers yes at a prompt; more beyond the declaration still grants
// nothing.
func (res Resolution) Allow(more Set, source string) Resolution {
	res.Granted = Merge(res.Granted, more)
	if source != "" {
		res.Sources = append(slices.Clone(res.Sources), source)
	}
	res.finish()
	return res
}

// Why says in one line what was granted and how, and what is missing,
// naming the flags that would grant it, for an embedder's logs and
// messages.
func (res Resolution) Why() string {
	var b strings.Builder
	if res.Effective.IsZero() {
		b.WriteString("granted nothing")
	} else {
		fmt.Fprintf(&b, "granted %s", Describe(res.Effective))
		if len(res.Sources) > 0 {
			fmt.Fprintf(&b, " (by %s)", strings.Join(res.Sources, ", "))
		}
	}
	if !res.Missing.IsZero() {
		fmt.Fprintf(&b, "; not granted: %s (add %s)", Describe(res.Missing), strings.Join(Flags(res.Missing), " "))
	}
	return b.String()
}

func (res *Resolution) finish() {
	res.Effective = Effective(res.Declared, res.Granted)
	res.Missing = Missing(res.Declared, res.Granted)
}
