package textcmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// envsubst is GNU gettext's envsubst: it copies standard input to
// standard output with $NAME and ${NAME} replaced by the exported
// variables' values (empty when unset). A SHELL-FORMAT operand limits
// the replacement to the variables it names; -v prints those names.
// Nothing else of the shell's syntax (${NAME:-x}, $1) is replaced, as
// in GNU's.
func envsubst(e *proc.Env, args []string) int {
	opts, ops, err := proc.Getopt{Spec: "v,variables h,help V,version"}.Parse(args[1:])
	if err != nil {
		fmt.Fprintf(e.Stderr, "envsubst: %v\n", err)
		e.TryHelp("envsubst")
		return 1
	}
	list := false
	for _, o := range opts {
		switch o.Key {
		case "v":
			list = true
		case "h":
			fmt.Fprintln(e.Stdout, "Usage: envsubst [OPTION] [SHELL-FORMAT]")
			return 0
		case "V":
			fmt.Fprintln(e.Stdout, "envsubst (GNU gettext-runtime) 0.21")
			return 0
		}
	}
	switch {
	case len(ops) > 1:
		e.Errorf("envsubst", "too many arguments")
		return 1
	case list && len(ops) == 0:
		e.Errorf("envsubst", "missing arguments")
		return 1
	}
	var only map[string]bool
	if len(ops) == 1 {
		only = map[string]bool{}
		names := envRefs(ops[0])
		if list {
			for _, n := range names {
				fmt.Fprintln(e.Stdout, n)
			}
			return 0
		}
		for _, n := range names {
			only[n] = true
		}
	}
	in, err := io.ReadAll(e.Stdin)
	if err != nil {
		e.Errorf("envsubst", "error while reading \"standard input\": %s", proc.ErrorText(err))
		return 1
	}
	out := newOutput(e.Stdout)
	_, _ = out.Write([]byte(expandEnvRefs(string(in), func(name string) (string, bool) {
		if only != nil && !only[name] {
			return "", false
		}
		return e.Getenv(name), true
	})))
	if err := out.flush(); err != nil {
		return 1
	}
	return 0
}

// envRefs lists the names a SHELL-FORMAT refers to, in order, repeats
// included (as envsubst -v prints them).
func envRefs(format string) []string {
	var names []string
	expandEnvRefs(format, func(name string) (string, bool) {
		names = append(names, name)
		return "", false
	})
	return names
}

// expandEnvRefs replaces each $NAME and ${NAME} of s for which value
// says so.
func expandEnvRefs(s string, value func(name string) (string, bool)) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j, braced := i+1, false
		if j < len(s) && s[j] == '{' {
			j, braced = j+1, true
		}
		k := j
		for k < len(s) && (s[k] == '_' || 'a' <= s[k]|0x20 && s[k]|0x20 <= 'z' || k > j && '0' <= s[k] && s[k] <= '9') {
			k++
		}
		end := k
		if braced {
			if k >= len(s) || s[k] != '}' {
				end = j - 1 // not a reference: ${ without a closing brace
			} else {
				end = k + 1
			}
		}
		if k == j || end <= j-1 {
			b.WriteByte('$')
			i++
			continue
		}
		if v, ok := value(s[j:k]); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i:end])
		}
		i = end
	}
	return b.String()
}
