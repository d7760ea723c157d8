package textcmd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const nlOpts = "b,body-numbering: h,header-numbering: f,footer-numbering: d,section-delimiter: i,line-increment: l,join-blank-lines: n,number-format: p,no-renumber s,number-separator: v,starting-line-number: w,number-width:"

// nl numbers the lines of the body section; header and footer sections
// (\:\:\: and \:) are not supported, which scripts hardly use.
func nl(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: nlOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	usage := func(msg string) int {
		return e.Usage("nl", 1, "%s", msg)
	}
	if err != nil {
		return usage(err.Error())
	}
	style := "t"
	var re *regexp.Regexp
	incr, start, width := int64(1), int64(1), 6
	format, sepStr := "rn", "\t"
	for _, o := range opts {
		switch o.Key {
		case "b":
			switch {
			case o.Val == "a" || o.Val == "t" || o.Val == "n":
				style = o.Val
			case strings.HasPrefix(o.Val, "p"):
				t, err := translate(o.Val[1:], reOptions{syntax: basicRE})
				if err == nil {
					re, err = compileRE(t.expr, false, false)
				}
				if err != nil {
					fmt.Fprintf(e.Stderr, "nl: %v\n", err)
					return 1
				}
				style = "p"
			default:
				return usage("invalid body numbering style: " + quoteArg(o.Val))
			}
		case "i", "v", "w":
			n, err := strconv.ParseInt(o.Val, 10, 64)
			if err != nil || o.Key == "w" && (n <= 0 || n > 1<<20) {
				what := map[string]string{"i": "line number increment", "v": "starting line number", "w": "line number field width"}[o.Key]
				fmt.Fprintf(e.Stderr, "nl: invalid %s: %s\n", what, quoteArg(o.Val))
				return 1
			}
			switch o.Key {
			case "i":
				incr = n
			case "v":
				start = n
			default:
				width = int(n)
			}
		case "n":
			if o.Val != "ln" && o.Val != "rn" && o.Val != "rz" {
				fmt.Fprintf(e.Stderr, "nl: invalid line numbering format: %s\n", quoteArg(o.Val))
				return 1
			}
			format = o.Val
		case "s":
			sepStr = o.Val
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	out := newOutput(e.Stdout)
	status := 0
	num := start
	blank := strings.Repeat(" ", width+len(sepStr))
	for _, name := range operands {
		rc, err := e.Open(name)
		if err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "nl: %s: %s\n", quoteName(name), proc.ErrorText(err))
			status = 1
			continue
		}
		lr := newLineReader(rc, '\n')
		for lr.next() && !e.Cancelled() && !out.failed() {
			line := lr.line
			numbered := style == "a" || style == "t" && len(line) > 0 || style == "p" && re.Match(line)
			if numbered {
				var s string
				switch format {
				case "ln":
					s = fmt.Sprintf("%-*d", width, num)
				case "rz":
					s = fmt.Sprintf("%0*d", width, num)
				default:
					s = fmt.Sprintf("%*d", width, num)
				}
				_, _ = out.WriteString(s + sepStr)
				num += incr
			} else {
				_, _ = out.WriteString(blank)
			}
			_, _ = out.Write(line)
			_ = out.WriteByte('\n')
		}
		rc.Close()
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}
