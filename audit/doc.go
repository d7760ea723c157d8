// Package audit records what sandboxed code used and was refused: every
// capability use and denial is an [Event] given to an [Auditor].
// [NewJSONLAuditor] writes JSON lines (skillrun's --audit file),
// [NewSlogAuditor] a structured log, [MultiAuditor] several at once, and
// [LimitAuditor] bounds what one run may record, so a guest never decides
// the audit's size. [WithAuditor] and [AuditorFrom] carry one in a
// context.
//
// It is the bottom layer of skillrun, with no dependency on the rest:
// the sandbox core, the capability checks, the host functions and the CLI
// all speak this one API.
//
// # API
//
// Events:
//   - [Event]: one audit record: a capability used or denied, or a step
//     the runtime took for a script (a mount, a limit, a run).
//   - [Decision] and its values ([Allow], [Deny]): whether it was allowed.
//
// Auditors:
//   - [Auditor]: records events; [AuditorFunc] makes one of a function and
//     [Discard] records nothing.
//   - [NewJSONLAuditor] and [JSONLAuditor]: one JSON line per event;
//     [JSONLAuditor.Err] is the first write error.
//   - [NewSlogAuditor]: events as records of a [slog.Logger].
//   - [MultiAuditor]: passes each event to several auditors.
//   - [LimitAuditor] and [LimitedAuditor]: bound the events of one run;
//     [LimitedAuditor.Dropped] counts those dropped past the bound.
//
// Context:
//   - [WithAuditor] and [AuditorFrom]: carry an auditor in a
//     [context.Context].
package audit
