package filecmd

import (
	"os"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func truncateCmd(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "truncate", 1, proc.Getopt{Spec: "c,no-create o,io-blocks r,reference: s,size:"}, args[1:])
	if !ok {
		return st
	}
	noCreate := false
	var sizeArg, ref string
	hasSize := false
	for _, o := range opts {
		switch o.Key {
		case "c":
			noCreate = true
		case "r":
			ref = o.Val
		case "s":
			sizeArg, hasSize = o.Val, true
		}
	}
	if !hasSize && ref == "" {
		return e.Usage("truncate", 1, "you must specify either %s or %s", q("--size"), q("--reference"))
	}
	if len(ops) == 0 {
		return e.Usage("truncate", 1, "missing file operand")
	}
	var op byte
	var size int64
	if hasSize {
		s := sizeArg
		if s != "" && (s[0] == '+' || s[0] == '-' || s[0] == '<' || s[0] == '>' || s[0] == '/' || s[0] == '%') {
			op, s = s[0], s[1:]
		}
		n, ok := parseSize(s)
		if !ok {
			e.Errorf("truncate", "Invalid number: %s", q(sizeArg))
			return 1
		}
		if (op == '/' || op == '%') && n == 0 {
			e.Errorf("truncate", "division by zero")
			return 1
		}
		size = n
	}
	if ref != "" {
		fi, err := os.Stat(e.Path(ref))
		if err != nil {
			e.Errorf("truncate", "cannot stat %s: %s", qa(ref), proc.ErrorText(err))
			return 1
		}
		if !hasSize {
			size = fi.Size()
		} else if op == '+' || op == '-' {
			// -r with a relative -s adjusts the reference's size.
			if op == '+' {
				size = fi.Size() + size
			} else {
				size = fi.Size() - size
			}
			op = 0
		}
	}
	status := 0
	for _, name := range ops {
		p := e.Path(name)
		flag := os.O_WRONLY | os.O_CREATE
		if noCreate {
			flag = os.O_WRONLY
		}
		f, err := os.OpenFile(p, flag, 0o666)
		if err != nil {
			if noCreate && isNotExist(err) {
				continue
			}
			e.Errorf("truncate", "cannot open %s for writing: %s", qa(name), proc.ErrorText(err))
			status = 1
			continue
		}
		fi, err := f.Stat()
		cur := int64(0)
		if err == nil {
			cur = fi.Size()
		}
		n := size
		switch op {
		case '+':
			n = cur + size
		case '-':
			n = max(0, cur-size)
		case '<':
			n = min(cur, size)
		case '>':
			n = max(cur, size)
		case '/':
			n = cur / size * size
		case '%':
			n = (cur + size - 1) / size * size
		}
		if err := f.Truncate(n); err != nil {
			e.Errorf("truncate", "failed to truncate %s at %d bytes: %s", qa(name), n, proc.ErrorText(err))
			status = 1
		}
		f.Close()
	}
	return status
}
