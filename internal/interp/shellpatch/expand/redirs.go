//go:build ignore

// Added to skillrun's build copy of mvdan.cc/sh/v3/expand (see
// internal/interp/shell.go): shopt -s failglob, where a pattern that
// matches no file fails the command line ("no match: pat", status 1)
// instead of standing for itself.

package expand

// skNoMatch is the error of a pattern matching nothing under failglob.
func skNoMatch(pat string) error {
	return SkillrunCommandError{Msg: "no match: " + pat}
}
