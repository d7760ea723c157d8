package textcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const sedOpts = "n,quiet,silent e,expression: f,file: E,regexp-extended r i,in-place:: s,separate z,null-data l,line-length: u,unbuffered b,binary ,posix ,debug ,sandbox ,follow-symlinks ,help ,version"

// sedUsage is GNU sed's usage text, which it prints on a usage error.
const sedUsage = `Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the ` + "`l'" + ` command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
`

// sedFile is an output of sed: standard output, a w file or an in-place
// edit's new file. missingNL remembers that the last line written lacked
// its newline (the input's last line had none); GNU sed adds it back
// before writing anything else there.
type sedFile struct {
	w         io.Writer
	out       *output // set for buffered outputs, flushed at the end
	f         *os.File
	missingNL bool
}

func (f *sedFile) write(s string, sep byte, nl bool) {
	if f.missingNL {
		_, _ = f.w.Write([]byte{sep})
		f.missingNL = false
	}
	_, _ = io.WriteString(f.w, s)
	if nl {
		_, _ = f.w.Write([]byte{sep})
	} else {
		f.missingNL = true
	}
}

// writeRaw writes text (a, i, c text, r file contents) as is.
func (f *sedFile) writeRaw(s string, sep byte) {
	if f.missingNL {
		_, _ = f.w.Write([]byte{sep})
		f.missingNL = false
	}
	_, _ = io.WriteString(f.w, s)
}

func sed(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: sedOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		fmt.Fprintf(e.Stderr, "sed: %v\n%s", err, sedUsage)
		return 1
	}
	r := &sedRun{e: e, lineLen: 70}
	var src strings.Builder
	var chunks []sedChunk
	exprs := 0
	addChunk := func(text, file string) {
		if src.Len() > 0 {
			src.WriteByte('\n')
		}
		start := src.Len()
		src.WriteString(text)
		if file == "" {
			exprs++
		}
		chunks = append(chunks, sedChunk{start: start, end: src.Len(), file: file, expr: exprs})
	}
	for _, o := range opts {
		switch o.Key {
		case "n":
			r.quiet = true
		case "e":
			addChunk(o.Val, "")
		case "f":
			data, err := readAllNamed(e, o.Val)
			if err != nil {
				fmt.Fprintf(e.Stderr, "sed: couldn't open file %s: %s\n", o.Val, proc.ErrorText(err))
				return 4
			}
			addChunk(strings.TrimSuffix(string(data), "\n"), o.Val)
		case "E", "r":
			r.ere = true
		case "i":
			r.inPlace, r.separate = true, true
			r.suffix = o.Val
		case "s":
			r.separate = true
		case "z":
			r.zero = true
		case "l":
			n, err := strconv.Atoi(o.Val)
			if err != nil || n < 0 {
				fmt.Fprintf(e.Stderr, "sed: invalid line length: %s\n", o.Val)
				return 1
			}
			r.lineLen = n
		case "help":
			fmt.Fprint(e.Stdout, sedUsage)
			return 0
		case "version":
			fmt.Fprintln(e.Stdout, "sed (GNU sed) 4.9")
			return 0
		}
	}
	if len(chunks) == 0 {
		if len(operands) == 0 {
			fmt.Fprint(e.Stderr, sedUsage)
			return 1
		}
		addChunk(operands[0], "")
		operands = operands[1:]
	}
	script := src.String()
	if strings.HasPrefix(script, "#n") && (len(script) == 2 || script[2] == '\n') {
		r.quiet = true
	}
	r.sep = sepByte(r.zero)
	r.stdout = &sedFile{out: newOutput(e.Stdout)}
	r.stdout.w = r.stdout.out
	r.cur = r.stdout
	r.files = map[string]*sedFile{}
	p := &sedParser{src: script, chunks: chunks, ere: r.ere, files: r.files, openFile: r.openW}
	defer r.closeFiles()
	if err := p.parse(); err != nil {
		fmt.Fprintf(e.Stderr, "sed: %v\n", err)
		if pe, ok := errors.AsType[*sedParseError](err); ok && pe.panic {
			return 4
		}
		return 1
	}
	r.cmds = p.cmds
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if r.inPlace {
		for _, name := range operands {
			if name == "-" {
				fmt.Fprintln(e.Stderr, "sed: couldn't edit -: not a regular file")
				return 4
			}
		}
	}
	r.in = &sedInput{e: e, names: operands, sep: r.sep, separate: r.separate, inPlace: r.inPlace}
	r.in.onOpen = r.startFile
	status := r.run()
	switch {
	case r.in.fatal:
		status = 4
	case r.in.failed && status == 0:
		status = 2
	}
	return status
}

// sedRun is one execution of a sed script.
type sedRun struct {
	e                                   *proc.Env
	cmds                                []*sedCmd
	quiet, ere, separate, inPlace, zero bool
	suffix                              string
	lineLen                             int
	sep                                 byte
	in                                  *sedInput
	stdout, cur                         *sedFile
	files                               map[string]*sedFile
	readers                             map[string]*lineReader
	ps, hs                              string
	nl                                  bool // the pattern space's line had its newline
	appendQ                             []appendItem
	replaced                            bool
	lastRE                              *regexp.Regexp
	quit                                bool
	status                              int
	inPlaceTmp                          *os.File
	inPlaceName, inPlacePath            string
}

// appendItem is queued output for the end of the cycle: a, r and R.
type appendItem struct {
	text string
	file string // r: a file to copy
}

func (r *sedRun) openW(name string) (*sedFile, error) {
	switch name {
	case "/dev/stdout":
		return r.stdout, nil
	case "/dev/stderr":
		return &sedFile{w: r.e.Stderr}, nil
	}
	f, err := os.Create(r.e.Path(name))
	if err != nil {
		return nil, &sedParseError{msg: fmt.Sprintf("couldn't open file %s: %s", name, proc.ErrorText(err)), panic: true}
	}
	sf := &sedFile{f: f, out: newOutput(f)}
	sf.w = sf.out
	return sf, nil
}

func (r *sedRun) closeFiles() {
	_ = r.stdout.out.flush()
	for _, f := range r.files {
		if f.out != nil {
			_ = f.out.flush()
		}
		if f.f != nil {
			f.f.Close()
		}
	}
}

// run executes the script over all input.
func (r *sedRun) run() int {
	restart := false
	for !r.quit && !r.e.Cancelled() && !r.stdout.out.failed() {
		if !restart && !r.read() {
			break
		}
		restart = r.cycle()
	}
	r.finishFile()
	if err := r.stdout.out.flush(); err != nil && r.status == 0 {
		r.status = 4
	}
	return r.status
}

// read replaces the pattern space with the next line.
func (r *sedRun) read() bool {
	line, nl, ok := r.in.read()
	if !ok {
		return false
	}
	r.ps, r.nl = line, nl
	r.replaced = false
	return true
}

// startFile is called when -i or -s moves to a new input file: the
// previous in-place edit is finished and the new one begins.
func (r *sedRun) startFile(name string) {
	if !r.inPlace {
		return
	}
	r.finishFile()
	p := r.e.Path(name)
	dir := path.Dir(p)
	tmp, err := os.CreateTemp(dir, "sed")
	if err != nil {
		fmt.Fprintf(r.e.Stderr, "sed: couldn't open temporary file %s/sedXXXXXX: %s\n", path.Dir(name), proc.ErrorText(err))
		r.status, r.quit = 4, true
		return
	}
	if info, err := os.Stat(p); err == nil {
		_ = tmp.Chmod(info.Mode().Perm())
	}
	r.inPlaceTmp, r.inPlaceName, r.inPlacePath = tmp, name, p
	out := newOutput(tmp)
	r.cur = &sedFile{w: out, out: out, f: tmp}
}

// finishFile ends the current in-place edit: the new file replaces the
// old one, which is kept under the backup suffix if one was given.
func (r *sedRun) finishFile() {
	if r.inPlaceTmp == nil {
		return
	}
	tmp := r.inPlaceTmp
	r.inPlaceTmp = nil
	err := r.cur.out.flush()
	tmp.Close()
	r.cur = r.stdout
	if err != nil {
		// A short file must not replace the original.
		fmt.Fprintf(r.e.Stderr, "sed: couldn't flush %s: %s\n", tmp.Name(), proc.ErrorText(err))
		_ = os.Remove(tmp.Name())
		r.status = 4
		return
	}
	if r.suffix != "" {
		backup := r.suffix
		if strings.Contains(backup, "*") {
			backup = strings.ReplaceAll(backup, "*", path.Base(r.inPlacePath))
			if !strings.Contains(backup, "/") {
				backup = path.Join(path.Dir(r.inPlacePath), backup)
			} else {
				backup = r.e.Path(backup)
			}
		} else {
			backup = r.inPlacePath + backup
		}
		if err := os.Rename(r.inPlacePath, backup); err != nil {
			fmt.Fprintf(r.e.Stderr, "sed: cannot rename %s: %s\n", r.inPlacePath, proc.ErrorText(err))
			_ = os.Remove(tmp.Name())
			r.status = 4
			return
		}
	}
	if err := os.Rename(tmp.Name(), r.inPlacePath); err != nil {
		fmt.Fprintf(r.e.Stderr, "sed: cannot rename %s: %s\n", tmp.Name(), proc.ErrorText(err))
		_ = os.Remove(tmp.Name())
		r.status = 4
	}
}

// cycle runs the script once over the pattern space. It reports
// whether D asked for the next cycle to start without reading input.
func (r *sedRun) cycle() bool {
	autoprint := true
	restart := false
	pc := 0
	for pc < len(r.cmds) {
		if r.e.Cancelled() {
			r.quit = true
			return false
		}
		c := r.cmds[pc]
		pc++
		if !r.selected(c) {
			if c.name == '{' {
				pc = c.blockEnd + 1
			}
			continue
		}
		switch c.name {
		case '{', '}', ':':
		case '=':
			r.cur.writeRaw(strconv.FormatInt(r.in.lineno, 10)+"\n", r.sep)
		case 'a':
			r.appendQ = append(r.appendQ, appendItem{text: c.text})
		case 'i':
			r.cur.writeRaw(c.text, r.sep)
		case 'c':
			if c.a2 == nil || c.negate || !c.active {
				r.cur.writeRaw(c.text, r.sep)
			}
			autoprint = false
			pc = len(r.cmds)
		case 'b':
			pc = c.target
		case 't':
			if r.replaced {
				r.replaced = false
				pc = c.target
			}
		case 'T':
			if !r.replaced {
				pc = c.target
			} else {
				r.replaced = false
			}
		case 'd':
			autoprint = false
			pc = len(r.cmds)
		case 'D':
			i := strings.IndexByte(r.ps, '\n')
			autoprint = false
			pc = len(r.cmds)
			if i >= 0 {
				r.ps = r.ps[i+1:]
				restart = true
			}
		case 'F':
			name := r.in.name
			r.cur.writeRaw(name+"\n", r.sep)
		case 'g':
			r.ps = r.hs
		case 'G':
			r.ps += "\n" + r.hs
		case 'h':
			r.hs = r.ps
		case 'H':
			r.hs += "\n" + r.ps
		case 'x':
			r.ps, r.hs = r.hs, r.ps
		case 'l':
			width := r.lineLen
			if c.hasNum {
				width = c.num
			}
			r.cur.writeRaw(sedEscape(r.ps, width), r.sep)
		case 'n':
			if r.in.isLast() {
				r.endOfInput()
				return false
			}
			if !r.quiet {
				r.cur.write(r.ps, r.sep, r.nl)
			}
			r.dumpAppend()
			r.read()
		case 'N':
			if r.in.isLast() {
				r.endOfInput()
				return false
			}
			r.dumpAppend()
			ps := r.ps
			r.read()
			r.ps = ps + "\n" + r.ps
		case 'p':
			r.cur.write(r.ps, r.sep, r.nl)
		case 'P':
			first, _, found := strings.Cut(r.ps, "\n")
			r.cur.write(first, r.sep, found || r.nl)
		case 'q':
			if c.hasNum {
				r.status = c.num
			}
			r.quit = true
			pc = len(r.cmds)
		case 'Q':
			if c.hasNum {
				r.status = c.num
			}
			r.quit = true
			return false
		case 'r':
			r.appendQ = append(r.appendQ, appendItem{file: c.text})
		case 'R':
			if line, ok := r.readLineFrom(c.text); ok {
				r.appendQ = append(r.appendQ, appendItem{text: line})
			}
		case 's':
			r.subst(c.s)
		case 'w':
			c.wfile.write(r.ps, r.sep, r.nl)
		case 'W':
			first, _, found := strings.Cut(r.ps, "\n")
			c.wfile.write(first, r.sep, found || r.nl)
		case 'y':
			r.ps = strings.Map(func(x rune) rune {
				if y, ok := c.y[x]; ok {
					return y
				}
				return x
			}, r.ps)
		case 'z':
			r.ps = ""
		}
	}
	if autoprint && !r.quiet {
		r.cur.write(r.ps, r.sep, r.nl)
	}
	r.dumpAppend()
	// D with a newline: the next cycle starts with what is left.
	return restart && !r.quit
}

// endOfInput is n or N with no next line: GNU sed prints the pattern
// space and stops (with -s or -i, only this file's cycle ends).
func (r *sedRun) endOfInput() {
	if !r.quiet {
		r.cur.write(r.ps, r.sep, r.nl)
	}
	r.dumpAppend()
	if !r.in.more() {
		r.quit = true
	}
}

// dumpAppend writes the queued a, r and R output.
func (r *sedRun) dumpAppend() {
	for _, a := range r.appendQ {
		if a.file == "" {
			r.cur.writeRaw(a.text, r.sep)
			continue
		}
		var data []byte
		var err error
		if a.file == "/dev/stdin" || a.file == "-" {
			data, err = io.ReadAll(r.e.Stdin)
		} else {
			data, err = os.ReadFile(r.e.Path(a.file))
		}
		if err == nil && len(data) > 0 {
			r.cur.writeRaw(string(data), r.sep)
		}
	}
	r.appendQ = r.appendQ[:0]
}

// readLineFrom reads the next line of an R file.
func (r *sedRun) readLineFrom(name string) (string, bool) {
	if r.readers == nil {
		r.readers = map[string]*lineReader{}
	}
	lr, ok := r.readers[name]
	if !ok {
		f, err := os.Open(r.e.Path(name))
		if err != nil {
			r.readers[name] = nil
			return "", false
		}
		lr = newLineReader(f, r.sep)
		r.readers[name] = lr
	}
	if lr == nil || !lr.next() {
		return "", false
	}
	return lr.text() + string(r.sep), true
}

// selected reports whether c's addresses select the current line,
// updating its range state.
func (r *sedRun) selected(c *sedCmd) bool {
	return r.matchAddrs(c) != c.negate
}

func (r *sedRun) matchAddrs(c *sedCmd) bool {
	if c.a1 == nil {
		return true
	}
	n := r.in.lineno
	if c.a2 == nil {
		return r.matchAddr(c.a1)
	}
	if c.active {
		switch c.a2.kind {
		case addrLine, addrPlus, addrMult:
			if n >= c.end {
				c.active = false
				if n > c.end {
					// The end was passed (N read over it): this line is
					// outside the range, but may start a new one.
					return r.startRange(c, n)
				}
			}
			return true
		case addrRegex:
			if r.matchRegex(c.a2.re) {
				c.active = false
			}
			return true
		case addrLast:
			if r.in.isLast() {
				c.active = false
			}
			return true
		}
		c.active = false
		return true
	}
	return r.startRange(c, n)
}

// startRange checks whether a range's first address matches line n.
func (r *sedRun) startRange(c *sedCmd, n int64) bool {
	if c.a1.kind == addrZero {
		if n != 1 || c.end < 0 {
			return false
		}
		// 0,/re/: the range is open before line 1, so /re/ may end it on
		// line 1 itself.
		c.end = -1
		if !r.matchRegex(c.a2.re) {
			c.active = true
		}
		return true
	}
	if !r.matchAddr(c.a1) {
		return false
	}
	switch c.a2.kind {
	case addrLine:
		c.active, c.end = c.a2.line > n, c.a2.line
	case addrPlus:
		c.active, c.end = c.a2.line > 0, n+c.a2.line
	case addrMult:
		if c.a2.line > 0 && n%c.a2.line != 0 {
			c.active, c.end = true, (n/c.a2.line+1)*c.a2.line
		}
	case addrLast:
		c.active = !r.in.isLast()
	default:
		c.active = true
	}
	return true
}

func (r *sedRun) matchAddr(a *sedAddr) bool {
	n := r.in.lineno
	switch a.kind {
	case addrLine:
		return n == a.line
	case addrLast:
		return r.in.isLast()
	case addrStep:
		if a.step <= 0 {
			return n == a.line
		}
		return n >= a.line && (n-a.line)%a.step == 0
	case addrRegex:
		return r.matchRegex(a.re)
	}
	return false
}

// regexFor resolves an empty regex to the last one used.
func (r *sedRun) regexFor(s *sedRegex) *regexp.Regexp {
	if s.re != nil {
		r.lastRE = s.re
		return s.re
	}
	return r.lastRE
}

func (r *sedRun) matchRegex(s *sedRegex) bool {
	re := r.regexFor(s)
	return re != nil && re.MatchString(r.ps)
}

// subst runs an s command on the pattern space.
func (r *sedRun) subst(s *sedSubst) {
	re := r.regexFor(s.re)
	if re == nil {
		return
	}
	limit := -1
	if !s.global {
		limit = s.nth
	}
	matches := re.FindAllStringSubmatchIndex(r.ps, limit)
	if len(matches) < s.nth {
		return
	}
	var b strings.Builder
	last := 0
	for i, m := range matches {
		if i+1 < s.nth {
			continue
		}
		b.WriteString(r.ps[last:m[0]])
		expandRepl(&b, s.repl, r.ps, m)
		last = m[1]
		if !s.global {
			break
		}
	}
	b.WriteString(r.ps[last:])
	r.ps = b.String()
	r.replaced = true
	if s.print {
		r.cur.write(r.ps, r.sep, r.nl)
	}
	if s.wfile != nil {
		s.wfile.write(r.ps, r.sep, r.nl)
	}
}

// expandRepl writes one replacement, applying GNU's case conversions:
// \U and \L until \E, \u and \l for the next character.
func expandRepl(b *strings.Builder, parts []replPart, src string, m []int) {
	var mode, once byte
	put := func(s string) {
		if mode == 0 && once == 0 {
			b.WriteString(s)
			return
		}
		for _, ch := range s {
			switch {
			case once == 'u':
				ch = unicode.ToUpper(ch)
				once = 0
			case once == 'l':
				ch = unicode.ToLower(ch)
				once = 0
			case mode == 'U':
				ch = unicode.ToUpper(ch)
			case mode == 'L':
				ch = unicode.ToLower(ch)
			}
			b.WriteRune(ch)
		}
	}
	for _, p := range parts {
		switch {
		case p.conv == 'U' || p.conv == 'L':
			mode, once = p.conv, 0
		case p.conv == 'E':
			mode, once = 0, 0
		case p.conv != 0:
			once = p.conv
		case p.group >= 0:
			if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
				put(src[m[2*p.group]:m[2*p.group+1]])
			}
		default:
			put(p.lit)
		}
	}
}

// sedEscape renders the pattern space as the l command does: C escapes,
// octal for other unprintable or non-ASCII bytes, lines wrapped with a
// backslash at width, and a final $.
func sedEscape(s string, width int) string {
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var o string
		switch c {
		case '\\':
			o = `\\`
		case '\a':
			o = `\a`
		case '\b':
			o = `\b`
		case '\f':
			o = `\f`
		case '\n':
			o = `\n`
		case '\r':
			o = `\r`
		case '\t':
			o = `\t`
		case '\v':
			o = `\v`
		default:
			if c < ' ' || c >= 0x7f {
				o = fmt.Sprintf(`\%03o`, c)
			} else {
				o = string(c)
			}
		}
		if width > 1 && col+len(o) >= width || width == 1 {
			b.WriteString("\\\n")
			col = 0
		}
		b.WriteString(o)
		col += len(o)
	}
	b.WriteString("$\n")
	return b.String()
}

// sedInput reads the input files as one stream of lines (or, with -s
// and -i, as separate ones), one line ahead so $ can be recognized.
type sedInput struct {
	e        *proc.Env
	names    []string
	next     int
	sep      byte
	separate bool
	inPlace  bool
	onOpen   func(name string)

	lr     *lineReader
	closer io.Closer
	name   string // the current file, "-" for standard input
	lineno int64
	failed bool // a file could not be read: exit status 2
	fatal  bool // a read error: GNU sed stops with status 4

	// The line read ahead, and the file it came from.
	have      bool
	line      string
	nl        bool
	aheadFile int
	fileNum   int // which file the pattern space's line came from
}

// open moves to the next file that can be read.
func (in *sedInput) open() bool {
	for in.next < len(in.names) {
		name := in.names[in.next]
		in.next++
		var rc io.ReadCloser
		if name == "-" {
			rc = io.NopCloser(in.e.Stdin)
		} else {
			f, err := os.Open(in.e.Path(name))
			if err != nil {
				fmt.Fprintf(in.e.Stderr, "sed: can't read %s: %s\n", name, proc.ErrorText(err))
				in.failed = true
				continue
			}
			if info, err := f.Stat(); err == nil && info.IsDir() {
				f.Close()
				if in.inPlace {
					fmt.Fprintf(in.e.Stderr, "sed: couldn't edit %s: not a regular file\n", name)
					in.failed = true
					continue
				}
				// GNU sed gives up on a read error.
				fmt.Fprintf(in.e.Stderr, "sed: read error on %s: %s\n", name, proc.ErrorText(errIsDirErr))
				in.fatal = true
				return false
			}
			rc = f
		}
		in.lr = newLineReader(rc, in.sep)
		in.closer = rc
		in.aheadFile = in.next
		return true
	}
	return false
}

// fill makes sure a line is read ahead; false at the end of all input.
func (in *sedInput) fill() bool {
	for !in.have {
		if in.fatal {
			return false
		}
		if in.lr == nil && !in.open() {
			return false
		}
		if in.lr.next() {
			in.line, in.nl, in.have = in.lr.text(), in.lr.hasSep, true
			return true
		}
		if in.lr.err != nil {
			fmt.Fprintf(in.e.Stderr, "sed: read error on %s: %s\n", in.names[in.aheadFile-1], proc.ErrorText(in.lr.err))
			in.fatal = true
			return false
		}
		in.closer.Close()
		in.lr = nil
	}
	return true
}

// read returns the next line.
func (in *sedInput) read() (string, bool, bool) {
	if !in.fill() {
		return "", false, false
	}
	in.have = false
	if in.aheadFile != in.fileNum {
		in.fileNum = in.aheadFile
		in.name = in.names[in.fileNum-1]
		if in.separate {
			in.lineno = 0
			if in.onOpen != nil {
				in.onOpen(in.name)
			}
		}
	}
	in.lineno++
	return in.line, in.nl, true
}

// isLast reports whether the current line is the last one: of its file
// with -s or -i, of all input otherwise.
func (in *sedInput) isLast() bool {
	if !in.fill() {
		return true
	}
	return in.separate && in.aheadFile != in.fileNum
}

// more reports whether any input is left.
func (in *sedInput) more() bool { return in.fill() }

var errIsDirErr = &os.PathError{Op: "read", Err: errIsDir}
