package agent

import (
	"context"

	"github.com/skillrun/skillrun/capabilities"
)

// Answer is the answer to a [PermissionRequest].
type Answer string

const (
	// AllowOnce grants what was asked for this one call.
	AllowOnce Answer = "allow_once"
	// AllowAlways grants it for the rest of the session.
	AllowAlways Answer = "allow_always"
	// Deny refuses it: the call gets an error result and the script does
	// not run.
	Deny Answer = "deny"
)

// A PermissionRequest is a skill's script asking, through a model's tool
// call, for capabilities it declares but the operator did not grant.
type PermissionRequest struct {
	Skill, Script string
	// Missing is what the script declares and nothing grants (see
	// [capabilities.Missing]).
	Missing capabilities.Set
}

// An Asker decides permission requests, usually by asking a person in a
// terminal. Ask is called with one request at a time.
type Asker interface {
	Ask(ctx context.Context, req PermissionRequest) (Answer, error)
}

// AskerFunc adapts a function to [Asker].
type AskerFunc func(ctx context.Context, req PermissionRequest) (Answer, error)

func (f AskerFunc) Ask(ctx context.Context, req PermissionRequest) (Answer, error) {
	return f(ctx, req)
}
