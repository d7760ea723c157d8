package abi

import "context"

// An OutputBudget is the output limit of one run, shared by every channel
// a guest writes through: stdout, stderr, and the host functions log and
// output. Without one budget a guest limited to 1 KiB of stdout could
// still log megabytes.
//
// Spend accounts for n more bytes and reports whether they fit; at the
// first refusal the budget also stops the run (the sandbox's budget fails
// the run with its output-limit error). It lives here, below both the
// sandbox, which puts a run's budget in the context of its host calls,
// and package host, whose functions spend from it. Spend is called from the
// goroutine running the guest, and must be safe for concurrent use with
// the run's own writes.
type OutputBudget interface {
	Spend(n int) bool
}

// budgetKey is the ctx key of a run's OutputBudget.
type budgetKey struct{}

// WithOutputBudget returns ctx carrying the run's output budget; the host
// functions served with that ctx spend from it (see [SpendOutput]).
func WithOutputBudget(ctx context.Context, b OutputBudget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// SpendOutput spends n bytes of ctx's budget; with no budget in ctx
// every write fits (the caller's own bounds still apply).
func SpendOutput(ctx context.Context, n int) bool {
	b, _ := ctx.Value(budgetKey{}).(OutputBudget)
	return b == nil || b.Spend(n)
}
