package awk

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// openFile opens output files; tests replace it to keep generated
// programs from writing outside their sandbox.
var openFile = func(name string, flag int) (io.WriteCloser, error) {
	return os.OpenFile(name, flag, 0o644)
}

// output is a stream opened by print > file, >> file or | command. A
// command's input is collected and the command runs when the stream is
// closed, since the shell runs commands to completion.
type output struct {
	w    *bufio.Writer
	auto bool // flush after every write: standard error
	c    io.Closer
	pipe *bytes.Buffer
	cmd  string
}

// input is a record source: a file, standard input or a command's
// output. A regex RS reads the rest of the source into memory.
type input struct {
	r       *bufio.Reader
	c       io.Closer
	rest    string
	slurped bool
	status  int
}

// stderrWriter flushes standard output before writing to standard error
// so that messages keep their place relative to normal output.
type stderrWriter struct{ in *interp }

func (w stderrWriter) Write(p []byte) (int, error) {
	_ = w.in.stdout.Flush()
	return w.in.e.Stderr.Write(p)
}

func (in *interp) stdinReader() *bufio.Reader {
	if in.stdin == nil {
		r := in.e.Stdin
		if r == nil {
			r = strings.NewReader("")
		}
		in.stdin = bufio.NewReader(r)
	}
	return in.stdin
}

func (in *interp) output(redir, name string) *output {
	if o := in.outputs[name]; o != nil {
		return o
	}
	o := &output{}
	switch {
	case redir == "|":
		o.pipe = &bytes.Buffer{}
		o.cmd = name
		o.w = bufio.NewWriter(o.pipe)
	case name == "/dev/stdout" || name == "-":
		return in.stdoutOut
	case name == "/dev/null":
		o.w = bufio.NewWriter(io.Discard)
	case name == "/dev/stderr":
		o.w = bufio.NewWriter(stderrWriter{in})
		o.auto = true
	default:
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if redir == ">>" {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := openFile(in.e.Path(name), flag)
		if err != nil {
			in.fatal("can't redirect to `%s' (%s)", name, proc.ErrorText(err))
		}
		o.w = bufio.NewWriter(f)
		o.c = f
	}
	in.outputs[name] = o
	in.outOrder = append(in.outOrder, name)
	return o
}

// runCmd runs a shell command line through the shell's Exec, after
// flushing output so that it appears in order.
func (in *interp) runCmd(cmd string, stdin io.Reader, stdout io.Writer) int {
	in.flushAll()
	if in.e.Exec == nil {
		return 127
	}
	return in.e.Exec([]string{"sh", "-c", cmd}, stdin, stdout, in.e.Stderr)
}

func (in *interp) flushAll() {
	for _, name := range in.outOrder {
		if o := in.outputs[name]; o != nil && o.pipe == nil {
			_ = o.w.Flush()
		}
	}
	_ = in.stdout.Flush()
}

// closeStream implements close(): the result is the command's exit
// status for pipes, 0 for files and -1 if name is not open.
func (in *interp) closeStream(name string) int {
	res := -1
	if o := in.outputs[name]; o != nil {
		delete(in.outputs, name)
		res = in.closeOutput(o)
	}
	if i := in.inputs[name]; i != nil {
		delete(in.inputs, name)
		if i.c != nil {
			i.c.Close()
		}
		res = i.status
	}
	return res
}

func (in *interp) closeOutput(o *output) int {
	err := o.w.Flush()
	if o.c != nil {
		if cerr := o.c.Close(); err == nil {
			err = cerr
		}
	}
	if o.pipe != nil {
		return in.runCmd(o.cmd, bytes.NewReader(o.pipe.Bytes()), in.e.Stdout)
	}
	if err != nil {
		return -1
	}
	return 0
}

// closeAll closes every stream at exit, in the order they were opened.
func (in *interp) closeAll() {
	for _, name := range in.outOrder {
		if o := in.outputs[name]; o != nil {
			delete(in.outputs, name)
			in.closeOutput(o)
		}
	}
	for name := range in.inputs {
		in.closeStream(name)
	}
	in.closeMain()
	if in.stdout.Flush() != nil && in.exitStatus == 0 {
		in.exitStatus = 1
	}
}

// readRecord reads the next record from src according to RS: a newline
// or other single character, "" for paragraph mode (records separated by
// blank lines), or a regex.
func (in *interp) readRecord(src *input) (string, bool) {
	rs := in.rs
	if src.slurped || utf8.RuneCountInString(rs) > 1 || len(rs) > 1 {
		return in.readSlurped(src, rs)
	}
	if rs == "" {
		return readParagraph(src.r)
	}
	line, err := src.r.ReadString(rs[0])
	if line == "" && err != nil {
		return "", false
	}
	if err == nil {
		line = line[:len(line)-1]
	}
	in.checkLen(len(line))
	return line, true
}

func readParagraph(r *bufio.Reader) (string, bool) {
	for {
		b, err := r.ReadByte()
		if err != nil {
			return "", false
		}
		if b != '\n' {
			_ = r.UnreadByte()
			break
		}
	}
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		if line == "\n" {
			break
		}
		if b.Len() > 0 && line != "" {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimSuffix(line, "\n"))
		if err != nil {
			break
		}
	}
	return b.String(), true
}

func (in *interp) readSlurped(src *input, rs string) (string, bool) {
	if !src.slurped {
		data, err := io.ReadAll(io.LimitReader(src.r, int64(maxStringLen)+1))
		if err != nil && len(data) == 0 {
			return "", false
		}
		in.checkLen(len(data))
		src.rest, src.slurped = string(data), true
	}
	var re *regexp.Regexp
	switch {
	case rs == "":
		src.rest = strings.TrimLeft(src.rest, "\n")
		re = paraRE
	case len(rs) == 1:
		re = regexp.MustCompile(regexp.QuoteMeta(rs))
	default:
		var err error
		if re, err = in.regexes.get(rs); err != nil {
			in.fatal("%v", err)
		}
	}
	if src.rest == "" {
		return "", false
	}
	for _, loc := range re.FindAllStringIndex(src.rest, 2) {
		if loc[1] > loc[0] {
			rec := src.rest[:loc[0]]
			src.rest = src.rest[loc[1]:]
			return rec, true
		}
	}
	rec := src.rest
	src.rest = ""
	if rs == "" {
		rec = strings.TrimRight(rec, "\n")
	}
	return rec, true
}

var paraRE = regexp.MustCompile(`\n\n+`)

// readMain reads the next record of the main input: the files named in
// ARGV (with var=value operands assigned when reached), or standard
// input when there are none.
func (in *interp) readMain() (string, bool) {
	for {
		if in.mainIn == nil && !in.openNext() {
			return "", false
		}
		if rec, ok := in.readRecord(in.mainIn); ok {
			return rec, true
		}
		in.closeMain()
	}
}

func (in *interp) closeMain() {
	if in.mainIn != nil && in.mainIn.c != nil {
		in.mainIn.c.Close()
	}
	in.mainIn = nil
}

func (in *interp) openNext() bool {
	if in.mainDone {
		return false
	}
	for {
		argc := int(in.globals[gARGC].v.toNum())
		in.argIdx++
		if in.argIdx >= argc {
			break
		}
		arg := in.argv(in.argIdx)
		if arg == "" {
			continue
		}
		if name, val, ok := cmdAssign(arg); ok {
			in.setGlobal(in.globalIdx(name), name, strnum(unescapeString(val)))
			continue
		}
		in.sawFile = true
		in.globals[gFILENAME].v = str(arg)
		in.globals[gFNR].v = num(0)
		if arg == "-" || arg == "/dev/stdin" {
			in.mainIn = &input{r: in.stdinReader()}
			return true
		}
		f, err := in.e.Open(arg)
		if err == nil {
			if st, serr := os.Stat(in.e.Path(arg)); serr == nil && st.IsDir() {
				f.Close()
				in.e.Errorf("awk", "warning: command line argument `%s' is a directory: skipped", arg)
				continue
			}
		}
		if err != nil {
			_ = in.stdout.Flush()
			in.e.Errorf("awk", "cannot open file `%s' for reading: %s", arg, proc.ErrorText(err))
			in.exitStatus = 2
			continue
		}
		in.mainIn = &input{r: bufio.NewReader(f), c: f}
		return true
	}
	in.mainDone = true
	if !in.sawFile {
		in.sawFile = true
		in.globals[gFNR].v = num(0)
		in.mainIn = &input{r: in.stdinReader()}
		return true
	}
	return false
}

// cmdAssign recognises a var=value operand.
func cmdAssign(arg string) (name, val string, ok bool) {
	eq := strings.IndexByte(arg, '=')
	if eq <= 0 {
		return "", "", false
	}
	name = arg[:eq]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && isDigit(c)) {
			return "", "", false
		}
	}
	if keywords[name] != 0 || builtinNames[name] {
		return "", "", false
	}
	return name, arg[eq+1:], true
}

// getline implements the three getline forms.
func (in *interp) getline(g *GetlineExpr) value {
	var src *input
	switch g.Kind {
	case "":
		rec, ok := in.readMain()
		if !ok {
			return num(0)
		}
		in.incNR()
		in.setGetline(g, rec)
		return num(1)
	case "<":
		name := in.toStr(in.eval(g.Src))
		src = in.inputs[name]
		if src == nil {
			if name == "-" || name == "/dev/stdin" {
				src = &input{r: in.stdinReader()}
			} else {
				f, err := in.e.Open(name)
				if err != nil {
					return num(-1)
				}
				if st, serr := os.Stat(in.e.Path(name)); serr == nil && st.IsDir() {
					f.Close()
					return num(-1)
				}
				src = &input{r: bufio.NewReader(f), c: f}
			}
			in.inputs[name] = src
		}
	case "|":
		name := in.toStr(in.eval(g.Src))
		src = in.inputs[name]
		if src == nil {
			var buf bytes.Buffer
			st := in.runCmd(name, strings.NewReader(""), &buf)
			src = &input{r: bufio.NewReader(&buf), status: st}
			in.inputs[name] = src
		}
	}
	rec, ok := in.readRecord(src)
	if !ok {
		return num(0)
	}
	if g.Kind == "|" {
		in.globals[gNR].v = num(in.globals[gNR].v.toNum() + 1)
	}
	in.setGetline(g, rec)
	return num(1)
}

func (in *interp) setGetline(g *GetlineExpr, rec string) {
	if g.Var == nil {
		in.setRecord(rec)
		return
	}
	in.assign(g.Var, strnum(rec))
}
