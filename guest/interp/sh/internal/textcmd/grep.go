package textcmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const grepOpts = "E,extended-regexp F,fixed-strings G,basic-regexp P,perl-regexp e,regexp: f,file: i,ignore-case y ,no-ignore-case v,invert-match w,word-regexp x,line-regexp c,count ,color,colour:: L,files-without-match l,files-with-matches m,max-count: o,only-matching q,quiet,silent s,no-messages b,byte-offset H,with-filename h,no-filename ,label: n,line-number T,initial-tab Z,null A,after-context: B,before-context: C,context: a,text ,binary-files: I r,recursive R,dereference-recursive ,include: ,exclude: ,exclude-dir: z,null-data U,binary ,line-buffered D,devices: d,directories: ,no-group-separator ,group-separator: 0 1 2 3 4 5 6 7 8 9"

const grepUsage = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"

func egrep(e *proc.Env, args []string) int {
	return runGrep(e, append([]string{"grep", "-E"}, args[1:]...))
}

func fgrep(e *proc.Env, args []string) int {
	return runGrep(e, append([]string{"grep", "-F"}, args[1:]...))
}

func grep(e *proc.Env, args []string) int { return runGrep(e, args) }

// grepper is one grep run: its options, its matcher and its output.
type grepper struct {
	e   *proc.Env
	out *output

	invert, count, listMatch, listNonMatch, only, quiet, noMessages    bool
	withName, lineNum, byteOff, initialTab, nullName, recursive, deref bool
	text, skipBinary, zero                                             bool
	maxCount                                                           int64 // -1: no limit
	after, before                                                      int
	groupSep                                                           *string
	label                                                              string
	includes, excludes, excludeDirs                                    []string

	m *grepMatcher

	errored  bool
	anyGroup bool // a context group was printed (the next needs "--")
}

func runGrep(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: grepOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		fmt.Fprintf(e.Stderr, "grep: %v\n%s", err, grepUsage)
		return 2
	}
	g := &grepper{e: e, out: newOutput(e.Stdout), maxCount: -1, after: -1, before: -1}
	sep := "--"
	g.groupSep = &sep
	syntax := basicRE
	var patterns []string
	havePatterns := false
	icase, word, line := false, false, false
	withName, noName := false, false
	digitCtx := ""
	for _, o := range opts {
		if len(o.Key) == 1 && o.Key[0] >= '0' && o.Key[0] <= '9' {
			digitCtx += o.Key
			n, _ := strconv.Atoi(digitCtx)
			g.after, g.before = n, n
			continue
		}
		digitCtx = ""
		switch o.Key {
		case "E":
			syntax = extendedRE
		case "F":
			syntax = fixedRE
		case "G":
			syntax = basicRE
		case "P":
			syntax = perlRE
		case "e":
			patterns = append(patterns, strings.Split(o.Val, "\n")...)
			havePatterns = true
		case "f":
			data, err := readAllNamed(e, o.Val)
			if err != nil {
				fmt.Fprintf(e.Stderr, "grep: %s: %s\n", o.Val, proc.ErrorText(err))
				return 2
			}
			s := string(data)
			if s != "" {
				patterns = append(patterns, strings.Split(strings.TrimSuffix(s, "\n"), "\n")...)
			}
			havePatterns = true
		case "i", "y":
			icase = true
		case "no-ignore-case":
			icase = false
		case "v":
			g.invert = true
		case "w":
			word = true
		case "x":
			line = true
		case "c":
			g.count = true
		case "color", "colour":
			// Output is never a terminal here: color is never used.
		case "L":
			g.listNonMatch, g.listMatch = true, false
		case "l":
			g.listMatch, g.listNonMatch = true, false
		case "m":
			n, err := strconv.ParseInt(o.Val, 10, 64)
			if err != nil {
				fmt.Fprintf(e.Stderr, "grep: invalid max count\n")
				return 2
			}
			if n < 0 {
				n = -1
			}
			g.maxCount = n
		case "o":
			g.only = true
		case "q":
			g.quiet = true
		case "s":
			g.noMessages = true
		case "b":
			g.byteOff = true
		case "H":
			withName, noName = true, false
		case "h":
			noName, withName = true, false
		case "label":
			g.label = o.Val
		case "n":
			g.lineNum = true
		case "T":
			g.initialTab = true
		case "Z":
			g.nullName = true
		case "A", "B", "C":
			n, err := strconv.Atoi(o.Val)
			if err != nil || n < 0 {
				fmt.Fprintf(e.Stderr, "grep: %s: invalid context length argument\n", o.Val)
				return 2
			}
			switch o.Key {
			case "A":
				g.after = n
			case "B":
				g.before = n
			default:
				g.after, g.before = n, n
			}
		case "a":
			g.text = true
		case "I":
			g.skipBinary = true
		case "binary-files":
			switch o.Val {
			case "binary":
				g.text, g.skipBinary = false, false
			case "text":
				g.text = true
			case "without-match":
				g.skipBinary = true
			default:
				fmt.Fprintf(e.Stderr, "grep: unknown binary-files type\n")
				return 2
			}
		case "r":
			g.recursive = true
		case "R":
			g.recursive, g.deref = true, true
		case "include":
			g.includes = append(g.includes, o.Val)
		case "exclude":
			g.excludes = append(g.excludes, o.Val)
		case "exclude-dir":
			g.excludeDirs = append(g.excludeDirs, o.Val)
		case "z":
			g.zero = true
		case "no-group-separator":
			g.groupSep = nil
		case "group-separator":
			s := o.Val
			g.groupSep = &s
		}
	}
	if !havePatterns {
		if len(operands) == 0 {
			fmt.Fprint(e.Stderr, grepUsage)
			return 2
		}
		patterns = strings.Split(operands[0], "\n")
		operands = operands[1:]
	}
	if g.after < 0 {
		g.after = 0
	}
	if g.before < 0 {
		g.before = 0
	}
	m, warnings, err := newGrepMatcher(patterns, syntax, icase, word, line)
	for _, w := range warnings {
		fmt.Fprintf(e.Stderr, "grep: warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "grep: %v\n", err)
		return 2
	}
	g.m = m

	implicitDot := false
	if len(operands) == 0 {
		if g.recursive {
			operands = []string{"."}
			implicitDot = true
		} else {
			operands = []string{"-"}
		}
	}
	g.withName = (len(operands) > 1 || g.recursive) && !noName || withName
	if implicitDot {
		g.withName = !noName
	}

	matched := false
	for _, name := range operands {
		if e.Cancelled() || g.out.failed() {
			break
		}
		if g.searchOperand(name, implicitDot) {
			matched = true
			if g.quiet {
				break
			}
		}
	}
	if err := g.out.flush(); err != nil && !g.errored {
		g.errored = true
	}
	switch {
	case g.quiet && matched:
		return 0
	case g.errored:
		return 2
	case matched:
		return 0
	}
	return 1
}

// readAllNamed reads a whole file argument ("-" is standard input).
func readAllNamed(e *proc.Env, name string) ([]byte, error) {
	f, err := e.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// warn reports a file error unless -s.
func (g *grepper) warn(name string, err error) {
	g.errored = true
	if !g.noMessages {
		_ = g.out.flush()
		fmt.Fprintf(g.e.Stderr, "grep: %s: %s\n", name, proc.ErrorText(err))
	}
}

// searchOperand searches one command-line operand, walking it when it is
// a directory and -r is on. It reports whether any line was selected.
func (g *grepper) searchOperand(name string, implicitDot bool) bool {
	if name == "-" {
		display := "(standard input)"
		if g.label != "" {
			display = g.label
		}
		return g.searchReader(display, g.e.Stdin)
	}
	p := g.e.Path(name)
	var info fs.FileInfo
	var err error
	if g.recursive && !g.deref {
		info, err = os.Lstat(p)
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			// Command-line symlinks are followed even with -r.
			info, err = os.Stat(p)
		}
	} else {
		info, err = os.Stat(p)
	}
	if err != nil {
		g.warn(name, err)
		return false
	}
	if info.IsDir() {
		if !g.recursive {
			g.warn(name, &fs.PathError{Op: "read", Path: name, Err: errIsDir})
			return false
		}
		if g.excluded(name, true, true) {
			return false
		}
		return g.walk(name, p, implicitDot)
	}
	if g.excluded(name, false, true) {
		return false
	}
	return g.searchFile(name, p)
}

var errIsDir error = syscall.EISDIR

// excluded applies --include, --exclude and --exclude-dir to a file or
// directory name. GNU matches the globs against the last component and,
// for command-line operands, against the whole name.
func (g *grepper) excluded(name string, dir, cmdline bool) bool {
	base := path.Base(name)
	match := func(glob string) bool {
		if ok, _ := path.Match(glob, base); ok {
			return true
		}
		ok, _ := path.Match(glob, name)
		return cmdline && ok
	}
	if dir {
		if cmdline && (name == "." || name == "..") {
			return false
		}
		for _, x := range g.excludeDirs {
			if match(x) {
				return true
			}
		}
		return false
	}
	for _, x := range g.excludes {
		if match(x) {
			return true
		}
	}
	if len(g.includes) > 0 {
		for _, x := range g.includes {
			if match(x) {
				return false
			}
		}
		return true
	}
	return false
}

// walk searches a directory tree in name order (GNU uses the directory's
// own order, which a sandbox cannot reproduce anyway).
func (g *grepper) walk(name, p string, implicitDot bool) bool {
	entries, err := os.ReadDir(p)
	if err != nil {
		g.warn(name, err)
		return false
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	matched := false
	for _, ent := range entries {
		if g.e.Cancelled() || g.out.failed() {
			break
		}
		child := name + "/" + ent.Name()
		if implicitDot && name == "." {
			// "grep -r foo" names files without a leading "./".
			child = ent.Name()
		} else if strings.HasSuffix(name, "/") {
			child = name + ent.Name()
		}
		cp := path.Join(p, ent.Name())
		mode := ent.Type()
		if mode&fs.ModeSymlink != 0 {
			if !g.deref {
				continue
			}
			info, err := os.Stat(cp)
			if err != nil {
				g.warn(child, err)
				continue
			}
			mode = info.Mode()
		}
		if mode.IsDir() {
			if g.excluded(child, true, false) {
				continue
			}
			if g.walk(child, cp, false) {
				matched = true
			}
			continue
		}
		if !mode.IsRegular() && mode.Type() != 0 {
			continue // devices, fifos and sockets are skipped when walking
		}
		if g.excluded(child, false, false) {
			continue
		}
		if g.searchFile(child, cp) {
			matched = true
		}
		if matched && g.quiet {
			break
		}
	}
	return matched
}

func (g *grepper) searchFile(name, p string) bool {
	f, err := os.Open(p)
	if err != nil {
		g.warn(name, err)
		return false
	}
	defer f.Close()
	return g.searchReader(name, f)
}

// ctxLine is a line kept for -B context.
type ctxLine struct {
	text   []byte
	num    int64
	offset int64
}

// searchReader searches one input. It prints the selected lines with
// their context, or counts them, or lists the file, as the options say.
func (g *grepper) searchReader(name string, r io.Reader) bool {
	br := bufio.NewReaderSize(r, 64*1024)
	binary := false
	if !g.text {
		head, _ := br.Peek(32 * 1024)
		binary = bytes.IndexByte(head, 0) >= 0
		if binary && g.skipBinary {
			return false
		}
	}
	lr := &lineReader{r: br, sep: sepByte(g.zero)}
	var (
		lineno, offset, selected int64
		lastPrinted              int64 = -1 // last line number printed
		afterLeft                int
		before                   []ctxLine
		stopAfterContext         bool
	)
	listing := g.listMatch || g.listNonMatch
	emit := !g.quiet && !listing && !g.count
	for lr.next() {
		if g.e.Cancelled() || g.out.failed() {
			break
		}
		lineno++
		line := lr.line
		lineOff := offset
		offset += int64(len(line))
		if lr.hasSep {
			offset++
		}
		if stopAfterContext {
			if afterLeft > 0 && !g.binaryLine(binary, line) {
				g.printLine(name, line, lineno, lineOff, '-')
				lastPrinted = lineno
				afterLeft--
				if afterLeft > 0 {
					continue
				}
			}
			break
		}
		sel := g.m.match(line) != g.invert
		if !sel {
			if !emit {
				continue
			}
			if afterLeft > 0 {
				g.printLine(name, line, lineno, lineOff, '-')
				lastPrinted = lineno
				afterLeft--
			} else if g.before > 0 {
				if len(before) == g.before {
					copy(before, before[1:])
					before = before[:len(before)-1]
				}
				before = append(before, ctxLine{append([]byte(nil), line...), lineno, lineOff})
			}
			continue
		}
		selected++
		if g.quiet || listing {
			break
		}
		if emit {
			if g.binaryLine(binary, line) {
				_ = g.out.flush()
				fmt.Fprintf(g.e.Stderr, "grep: %s: binary file matches\n", name)
				return true
			}
			if (g.before > 0 || g.after > 0) && g.groupSep != nil {
				first := lineno - int64(len(before))
				if g.anyGroup && (lastPrinted < 0 || first > lastPrinted+1) {
					_, _ = g.out.WriteString(*g.groupSep)
					_ = g.out.WriteByte('\n')
				}
				g.anyGroup = true
			}
			for _, c := range before {
				g.printLine(name, c.text, c.num, c.offset, '-')
			}
			before = before[:0]
			if g.only {
				g.printMatches(name, line, lineno, lineOff)
			} else {
				g.printLine(name, line, lineno, lineOff, ':')
			}
			lastPrinted = lineno
			afterLeft = g.after
		}
		if g.maxCount >= 0 && selected >= g.maxCount {
			if !emit || afterLeft == 0 {
				break
			}
			stopAfterContext = true
		}
	}
	if g.maxCount == 0 {
		selected = 0
	}
	if lr.err != nil {
		g.warn(name, lr.err)
	}
	if g.count {
		g.prefixName(name, ':')
		fmt.Fprintf(g.out, "%d\n", selected)
	}
	if g.listMatch && selected > 0 || g.listNonMatch && selected == 0 {
		_, _ = g.out.WriteString(name)
		if g.nullName {
			_ = g.out.WriteByte(0)
		} else {
			_ = g.out.WriteByte('\n')
		}
	}
	return selected > 0
}

// binaryLine reports whether printing line would print binary data: the
// file had NUL bytes or the line is not valid UTF-8. GNU grep then says
// "binary file matches" instead of printing the line.
func (g *grepper) binaryLine(binary bool, line []byte) bool {
	if g.text {
		return false
	}
	return binary || bytes.IndexByte(line, 0) >= 0 && !g.zero || !utf8.Valid(line)
}

func (g *grepper) prefixName(name string, sep byte) {
	if !g.withName {
		return
	}
	_, _ = g.out.WriteString(name)
	if g.nullName {
		_ = g.out.WriteByte(0)
	} else {
		_ = g.out.WriteByte(sep)
	}
}

// prefix writes "file:", "12:" and "340:" as -H, -n and -b ask; sep is
// ':' for selected lines and '-' for context.
func (g *grepper) prefix(name string, num, off int64, sep byte) {
	g.prefixName(name, sep)
	if g.lineNum {
		_, _ = g.out.WriteString(strconv.FormatInt(num, 10))
		_ = g.out.WriteByte(sep)
	}
	if g.byteOff {
		_, _ = g.out.WriteString(strconv.FormatInt(off, 10))
		_ = g.out.WriteByte(sep)
	}
	if g.initialTab && (g.withName || g.lineNum || g.byteOff) {
		_ = g.out.WriteByte('\t')
	}
}

func (g *grepper) printLine(name string, line []byte, num, off int64, sep byte) {
	g.prefix(name, num, off, sep)
	_, _ = g.out.Write(line)
	_ = g.out.WriteByte(sepByte(g.zero))
}

// printMatches prints each non-empty match of line on its own line (-o).
func (g *grepper) printMatches(name string, line []byte, num, off int64) {
	if g.invert {
		return
	}
	for _, loc := range g.m.all(line) {
		if loc[1] == loc[0] {
			continue
		}
		g.prefix(name, num, off+int64(loc[0]), ':')
		_, _ = g.out.Write(line[loc[0]:loc[1]])
		_ = g.out.WriteByte(sepByte(g.zero))
	}
}

// grepMatcher decides whether a line matches grep's patterns.
type grepMatcher struct {
	re    *regexp.Regexp // nil when there are no patterns
	word  bool
	empty bool // some pattern is empty: every line matches
}

// newGrepMatcher joins the patterns into one alternation, which has the
// leftmost-longest semantics GNU grep gives several patterns.
func newGrepMatcher(patterns []string, syntax reSyntax, icase, word, line bool) (*grepMatcher, []string, error) {
	m := &grepMatcher{word: word}
	if len(patterns) == 0 {
		return m, nil, nil
	}
	var parts, warnings []string
	for _, p := range patterns {
		var expr string
		switch syntax {
		case fixedRE:
			expr = regexp.QuoteMeta(p)
		case perlRE:
			x, err := translatePerl(p)
			if err != nil {
				return nil, nil, err
			}
			expr = x
		default:
			if syntax == basicRE || syntax == extendedRE {
				if strings.HasPrefix(p, "[:") && strings.HasSuffix(p, ":]") && len(p) > 4 && posixClasses[p[2:len(p)-2]] {
					return nil, nil, fmt.Errorf("character class syntax is [[:space:]], not [:space:]")
				}
			}
			t, err := translate(p, reOptions{syntax: syntax})
			warnings = append(warnings, t.warnings...)
			if err != nil {
				if errors.Is(err, errBackref) {
					return nil, warnings, fmt.Errorf("%w (pattern %q)", err, p)
				}
				return nil, warnings, err
			}
			expr = t.expr
		}
		if p == "" && !line && !word {
			m.empty = true
		}
		parts = append(parts, "(?:"+expr+")")
	}
	expr := strings.Join(parts, "|")
	if line {
		expr = "^(?:" + expr + ")$"
	}
	flags := "(?s"
	if icase {
		flags += "i"
	}
	re, err := regexp.Compile(flags + ")" + expr)
	if err != nil {
		if syntax == perlRE {
			return nil, warnings, fmt.Errorf("unsupported Perl regular expression: %w", err)
		}
		return nil, warnings, err
	}
	if syntax != perlRE {
		re.Longest()
	}
	m.re = re
	return m, warnings, nil
}

func (m *grepMatcher) match(line []byte) bool {
	if m.re == nil {
		return false
	}
	if m.empty {
		return true
	}
	if !m.word {
		return m.re.Match(line)
	}
	return len(m.all(line)) > 0
}

// all returns the matches of line; with -w only those that stand as
// whole words, as GNU grep checks them: the characters around the match
// must not be word constituents.
func (m *grepMatcher) all(line []byte) [][]int {
	if m.re == nil {
		return nil
	}
	locs := m.re.FindAllIndex(line, -1)
	if !m.word {
		return locs
	}
	kept := locs[:0]
	for _, loc := range locs {
		if loc[0] == loc[1] {
			continue
		}
		if wordBefore(line, loc[0]) || wordAfter(line, loc[1]) {
			continue
		}
		kept = append(kept, loc)
	}
	return kept
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func wordBefore(line []byte, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRune(line[:i])
	return isWordRune(r)
}

func wordAfter(line []byte, i int) bool {
	if i >= len(line) {
		return false
	}
	r, _ := utf8.DecodeRune(line[i:])
	return isWordRune(r)
}
