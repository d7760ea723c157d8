package textcmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const headOpts = "n,lines: c,bytes: q,quiet,silent v,verbose z,zero-terminated"

const tailOpts = "n,lines: c,bytes: q,quiet,silent v,verbose z,zero-terminated f,follow:: F s,sleep-interval: ,pid: ,retry ,max-unchanged-stats:"

// obsoleteCount rewrites the obsolete "-5", "-5c" and "+5" (tail)
// forms into -n/-c options, as head and tail still accept them.
func obsoleteCount(args []string, plus bool) []string {
	out := make([]string, 0, len(args)+1)
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if i > 0 && takesCount(args[i-1]) {
			out = append(out, a) // the argument of -n or -c
			continue
		}
		sign := ""
		if len(a) > 1 && (a[0] == '-' || plus && a[0] == '+' && i == 0) && a[1] >= '0' && a[1] <= '9' {
			if a[0] == '+' {
				sign = "+"
			}
			num := strings.TrimRight(a[1:], "bcklfqv")
			flag := "-n"
			for _, s := range a[1+len(num):] {
				switch s {
				case 'c':
					flag = "-c"
				case 'b':
					num += "b"
					flag = "-c"
				case 'k':
					num += "K"
					flag = "-c"
				}
			}
			if strings.Trim(num, "0123456789bK") == "" {
				out = append(out, flag, sign+num)
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// takesCount reports whether a is an option whose argument follows it:
// -n, -c, or a cluster ending in one (-vn).
func takesCount(a string) bool {
	if a == "--lines" || a == "--bytes" {
		return true
	}
	if len(a) < 2 || a[0] != '-' || a[1] == '-' {
		return false
	}
	for i := 1; i < len(a); i++ {
		if a[i] == 'n' || a[i] == 'c' {
			return i == len(a)-1
		}
	}
	return false
}

// parseCount parses a head/tail count with GNU's suffixes.
func parseCount(s string) (int64, bool) {
	mult := map[string]int64{
		"": 1, "b": 512, "kB": 1000, "K": 1024, "KiB": 1024, "MB": 1000 * 1000, "M": 1 << 20,
		"MiB": 1 << 20, "GB": 1e9, "G": 1 << 30, "GiB": 1 << 30, "TB": 1e12, "T": 1 << 40,
		"TiB": 1 << 40, "PB": 1e15, "P": 1 << 50, "PiB": 1 << 50, "EB": 1e18, "E": 1 << 60, "EiB": 1 << 60,
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	m, ok := mult[s[i:]]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil || m > 1 && n > (1<<63-1)/m {
		return 1<<63 - 1, true // too large: as good as infinite
	}
	return n * m, true
}

// openFile opens a head/tail/... operand with coreutils' error text.
func openFile(e *proc.Env, cmd, name string) (io.ReadCloser, bool) {
	f, err := e.Open(name)
	if err != nil {
		fmt.Fprintf(e.Stderr, "%s: cannot open %s for reading: %s\n", cmd, quoteAlways(name), proc.ErrorText(err))
		return nil, false
	}
	return f, true
}

// headTailArgs is what head and tail share: the count, its unit and the
// header policy.
type headTailArgs struct {
	count     int64
	bytes     bool
	fromStart bool // tail +N; head -N (all but the last N)
	quiet     bool
	verbose   bool
	sep       byte
	operands  []string
}

func parseHeadTail(e *proc.Env, cmd string, args []string, spec string) (*headTailArgs, bool) {
	opts, operands, err := proc.Getopt{Spec: spec, Posix: posixlyCorrect(e)}.Parse(obsoleteCount(args[1:], cmd == "tail"))
	if err != nil {
		e.Usage(cmd, 1, "%v", err)
		return nil, false
	}
	a := &headTailArgs{count: 10, sep: '\n', operands: operands}
	for _, o := range opts {
		switch o.Key {
		case "n", "c":
			a.bytes = o.Key == "c"
			s := o.Val
			a.fromStart = false
			if s != "" && (s[0] == '-' || s[0] == '+') {
				a.fromStart = s[0] == '-' && cmd == "head" || s[0] == '+' && cmd == "tail"
				s = s[1:]
			}
			n, ok := parseCount(s)
			if !ok {
				what := "lines"
				if a.bytes {
					what = "bytes"
				}
				fmt.Fprintf(e.Stderr, "%s: invalid number of %s: %s\n", cmd, what, quoteArg(s))
				return nil, false
			}
			a.count = n
		case "q":
			a.quiet, a.verbose = true, false
		case "v":
			a.verbose, a.quiet = true, false
		case "z":
			a.sep = 0
		}
	}
	if len(a.operands) == 0 {
		a.operands = []string{"-"}
	}
	return a, true
}

// eachFile runs fn on each operand with "==> name <==" headers when
// several files are given (or -v).
func (a *headTailArgs) eachFile(e *proc.Env, cmd string, out *output, fn func(r io.Reader) error) int {
	status := 0
	headers := a.verbose || len(a.operands) > 1 && !a.quiet
	first := true
	for _, name := range a.operands {
		if e.Cancelled() || out.failed() {
			break
		}
		rc, ok := openFile(e, cmd, name)
		if !ok {
			status = 1
			continue
		}
		if headers {
			display := name
			if name == "-" {
				display = "standard input"
			}
			if !first {
				_ = out.WriteByte('\n')
			}
			fmt.Fprintf(out, "==> %s <==\n", display)
		}
		first = false
		if err := fn(rc); err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "%s: error reading %s: %s\n", cmd, quoteAlways(name), proc.ErrorText(err))
			status = 1
		}
		rc.Close()
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}

func head(e *proc.Env, args []string) int {
	a, ok := parseHeadTail(e, "head", args, headOpts)
	if !ok {
		return 1
	}
	out := newOutput(e.Stdout)
	return a.eachFile(e, "head", out, func(r io.Reader) error {
		switch {
		case a.bytes && !a.fromStart:
			_, err := io.Copy(out, io.LimitReader(r, a.count))
			if errors.Is(err, out.err) {
				return nil
			}
			return err
		case a.bytes:
			return headAllButBytes(r, out, a.count)
		case !a.fromStart:
			return headLines(e, r, out, a.count, a.sep)
		}
		return headAllButLines(e, r, out, a.count, a.sep)
	})
}

func headLines(e *proc.Env, r io.Reader, out *output, n int64, sep byte) error {
	br := bufio.NewReaderSize(r, 64*1024)
	for n > 0 && !e.Cancelled() && !out.failed() {
		chunk, err := br.ReadSlice(sep)
		_, _ = out.Write(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		n--
	}
	return nil
}

// headAllButLines prints all but the last n lines, holding n lines.
func headAllButLines(e *proc.Env, r io.Reader, out *output, n int64, sep byte) error {
	lr := newLineReader(r, sep)
	var ring [][]byte
	for lr.next() && !e.Cancelled() && !out.failed() {
		line := append(append([]byte(nil), lr.line...), sep)
		if !lr.hasSep {
			line = line[:len(line)-1]
		}
		if int64(len(ring)) < n {
			ring = append(ring, line)
			continue
		}
		if n == 0 {
			_, _ = out.Write(line)
			continue
		}
		_, _ = out.Write(ring[0])
		copy(ring, ring[1:])
		ring[len(ring)-1] = line
	}
	return lr.err
}

func headAllButBytes(r io.Reader, out *output, n int64) error {
	data, err := io.ReadAll(r)
	if int64(len(data)) > n {
		_, _ = out.Write(data[:int64(len(data))-n])
	}
	return err
}

func tail(e *proc.Env, args []string) int {
	a, ok := parseHeadTail(e, "tail", args, tailOpts)
	if !ok {
		return 1
	}
	out := newOutput(e.Stdout)
	return a.eachFile(e, "tail", out, func(r io.Reader) error {
		switch {
		case a.bytes && a.fromStart:
			if a.count > 1 {
				if _, err := io.CopyN(io.Discard, r, a.count-1); err != nil {
					if errors.Is(err, io.EOF) {
						return nil
					}
					return err
				}
			}
			_, err := io.Copy(out, r)
			if errors.Is(err, out.err) {
				return nil
			}
			return err
		case a.bytes:
			return tailBytes(r, out, a.count)
		case a.fromStart:
			return tailFromLine(e, r, out, a.count, a.sep)
		}
		return tailLines(e, r, out, a.count, a.sep)
	})
}

// tailBytes prints the last n bytes; a regular file is read from where
// they start rather than from its beginning.
func tailBytes(r io.Reader, out *output, n int64) error {
	if f, ok := r.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if size := info.Size(); size > n {
				if _, err := f.Seek(size-n, io.SeekStart); err == nil {
					_, err = io.Copy(out, f)
					if errors.Is(err, out.err) {
						return nil
					}
					return err
				}
			}
		}
	}
	var ring []byte
	buf := make([]byte, 64*1024)
	for {
		k, err := r.Read(buf)
		ring = append(ring, buf[:k]...)
		if int64(len(ring)) > 2*n+int64(len(buf)) {
			ring = append(ring[:0], ring[int64(len(ring))-n:]...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if int64(len(ring)) > n {
		ring = ring[int64(len(ring))-n:]
	}
	_, _ = out.Write(ring)
	return nil
}

func tailFromLine(e *proc.Env, r io.Reader, out *output, n int64, sep byte) error {
	br := bufio.NewReaderSize(r, 64*1024)
	for line := int64(1); line < n; {
		chunk, err := br.ReadSlice(sep)
		if err == nil {
			line++
		} else if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		_ = chunk
	}
	_, err := io.Copy(out, br)
	if errors.Is(err, out.err) {
		return nil
	}
	return err
}

// tailLines prints the last n lines, keeping only those in memory.
func tailLines(e *proc.Env, r io.Reader, out *output, n int64, sep byte) error {
	if n == 0 {
		_, err := io.Copy(io.Discard, r)
		return err
	}
	lr := newLineReader(r, sep)
	ring := make([][]byte, 0, min(n, 1024))
	start := 0
	for lr.next() {
		if e.Cancelled() {
			return nil
		}
		line := append(append([]byte(nil), lr.line...), sep)
		if !lr.hasSep {
			line = line[:len(line)-1]
		}
		if int64(len(ring)) < n {
			ring = append(ring, line)
			continue
		}
		ring[start] = line
		start = (start + 1) % len(ring)
	}
	for i := range ring {
		_, _ = out.Write(ring[(start+i)%len(ring)])
	}
	return lr.err
}
