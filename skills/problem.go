package skills

import (
	"fmt"
	"strings"

	"github.com/skillrun/skillrun/internal/termsafe"
)

// Severity says whether a [Problem] makes a skill invalid.
type Severity int

const (
	// Error makes the skill invalid: `skillrun validate` exits 1.
	Error Severity = iota
	// Warning is reported but does not make the skill invalid. Clients
	// loading skills leniently turn some errors into warnings.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// A Problem is one thing wrong with a skill: where it is (file, line, field)
// and what is wrong. Validation reports every problem it finds, not just the
// first, so an author can fix them all in one pass.
type Problem struct {
	Severity Severity `json:"severity"`
	// File is the path of the file the problem is in, as given to the
	// loader (e.g. "pdf/SKILL.md" or "pdf/skill.toml").
	File string `json:"file,omitempty"`
	// Line is the 1-based line in File, or 0 when the problem has no line.
	Line int `json:"line,omitempty"`
	// Field is the frontmatter field or manifest key concerned, if any.
	Field string `json:"field,omitempty"`
	// Code is a stable machine-readable identifier of the rule broken
	// (e.g. "name-dir-mismatch"); empty for problems without one.
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// Error formats the problem as "file:line: message", the form editors and
// compilers use, so the location is clickable in a terminal. Paths and
// messages quote what a skill's author wrote; the whole line is made
// terminal-safe ([termsafe.String]), so a file or field name cannot carry
// an escape sequence to the screen.
func (p Problem) Error() string {
	return termsafe.String(p.raw())
}

func (p Problem) raw() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
	}
	if p.Severity == Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is a list of problems. As an error it reports every entry.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Errors returns the problems of severity [Error].
func (ps Problems) Errors() Problems { return ps.filter(Error) }

// Warnings returns the problems of severity [Warning].
func (ps Problems) Warnings() Problems { return ps.filter(Warning) }

func (ps Problems) filter(s Severity) Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}
