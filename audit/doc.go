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
package audit
