package filecmd

import (
	"io"
	"os"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

func tee(e *proc.Env, args []string) int {
	opts, files, st, ok := parseArgs(e, "tee", 1, proc.Getopt{Spec: "a,append i,ignore-interrupts p ,output-error::"}, args[1:])
	if !ok {
		return st
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	for _, o := range opts {
		if o.Key == "a" {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
	}
	status := 0
	type out struct {
		name string
		w    io.Writer
	}
	outs := []out{{"standard output", e.Stdout}}
	for _, name := range files {
		f, err := os.OpenFile(e.Path(name), flag, 0o666)
		if err != nil {
			e.Errorf("tee", "%s: %s", qf(name), proc.ErrorText(err))
			status = 1
			continue
		}
		defer f.Close()
		outs = append(outs, out{name, f})
	}
	buf := make([]byte, 32<<10)
	for !e.Cancelled() {
		n, err := e.Stdin.Read(buf)
		if n > 0 {
			// A failing output is reported once and dropped; the rest
			// still get the data, as with GNU tee.
			kept := outs[:0]
			for _, o := range outs {
				if _, werr := o.w.Write(buf[:n]); werr != nil {
					e.Errorf("tee", "%s: %s", qf(o.name), proc.ErrorText(werr))
					status = 1
					continue
				}
				kept = append(kept, o)
			}
			outs = kept
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			e.Errorf("tee", "read error: %s", proc.ErrorText(err))
			return 1
		}
	}
	return status
}
