package filecmd

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// find walks each starting point depth-first. GNU find visits entries in
// the order readdir returns them; os.ReadDir sorts by name, so this find
// lists a directory's entries sorted byte-wise. Output is therefore
// reproducible, but may order siblings differently from a real disk.
//
// Symbolic links are not followed unless -L (or -H for starting points)
// is given; with -L a directory met again below itself is reported as a
// file system loop and skipped, so walks always terminate.
type finder struct {
	e                  *proc.Env
	w                  *bufio.Writer
	follow, followTop  bool
	maxDepth, minDepth int
	depthFirst         bool
	expr               findNode
	status             int
	quit, prune        bool
	now                time.Time
	batches            []*execNode
}

// A findFile is the file being tested.
type findFile struct {
	path  string // as printed
	abs   string
	start string // starting point, for %P and %H
	depth int
	fi    fs.FileInfo
}

func (f *findFile) name() string {
	if f.depth == 0 {
		if t := trimSlashes(f.path); t == "/" {
			return "/"
		}
		return path.Base(trimSlashes(f.path))
	}
	return path.Base(f.path)
}

// A findNode is one operator or primary of the expression.
type findNode interface {
	eval(fd *finder, f *findFile) bool
}

func find(e *proc.Env, args []string) int {
	fd := &finder{e: e, maxDepth: -1, now: time.Now()}
	args = args[1:]
	for len(args) > 0 {
		switch a := args[0]; {
		case a == "-L":
			fd.follow = true
		case a == "-H":
			fd.followTop = true
		case a == "-P":
			fd.follow, fd.followTop = false, false
		case a == "-D" && len(args) > 1:
			args = args[1:]
		case strings.HasPrefix(a, "-O"):
		default:
			goto paths
		}
		args = args[1:]
	}
paths:
	var starts []string
	for len(args) > 0 && !isFindExprStart(args[0]) {
		starts = append(starts, args[0])
		args = args[1:]
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	p := &findParser{fd: fd, args: args}
	expr, ok := p.parse()
	if !ok {
		return 1
	}
	if !p.hasAction {
		if expr == nil {
			expr = &printNode{}
		} else {
			expr = &andNode{expr, &printNode{}}
		}
	}
	fd.expr = expr
	if p.delete {
		fd.depthFirst = true
	}
	fd.w = bufio.NewWriter(e.Stdout)
	for _, s := range starts {
		if fd.quit || e.Cancelled() {
			break
		}
		fd.walkStart(s)
	}
	fd.flushBatches()
	_ = fd.w.Flush()
	return fd.status
}

func isFindExprStart(a string) bool {
	return (len(a) > 1 && a[0] == '-') || a == "(" || a == "!" || a == ","
}

func (fd *finder) errorf(format string, a ...any) {
	_ = fd.w.Flush()
	fd.e.Errorf("find", format, a...)
	fd.status = 1
}

func (fd *finder) walkStart(start string) {
	abs := fd.e.Path(start)
	var fi fs.FileInfo
	var err error
	if fd.follow || fd.followTop {
		fi, err = os.Stat(abs)
		if err != nil {
			fi, err = os.Lstat(abs)
		}
	} else {
		fi, err = os.Lstat(abs)
	}
	if err != nil {
		fd.errorf("%s: %s", q(start), proc.ErrorText(err))
		return
	}
	fd.walk(&findFile{path: start, abs: abs, start: start, fi: fi}, nil)
}

func (fd *finder) walk(f *findFile, ancestors []fs.FileInfo) {
	if fd.quit || fd.e.Cancelled() {
		return
	}
	pruned := false
	visit := func() {
		if f.depth >= fd.minDepth {
			fd.prune = false
			fd.expr.eval(fd, f)
			pruned = fd.prune
		}
	}
	if !fd.depthFirst {
		visit()
	}
	if f.fi.IsDir() && !pruned && !fd.quit && (fd.maxDepth < 0 || f.depth < fd.maxDepth) {
		fd.walkDir(f, append(ancestors, f.fi))
	}
	if fd.depthFirst && !fd.quit {
		visit()
	}
}

func (fd *finder) walkDir(f *findFile, ancestors []fs.FileInfo) {
	entries, err := os.ReadDir(f.abs)
	if err != nil {
		fd.errorf("%s: %s", q(f.path), proc.ErrorText(err))
		return
	}
	for _, de := range entries {
		if fd.quit {
			return
		}
		child := &findFile{path: joinPath(f.path, de.Name()), abs: path.Join(f.abs, de.Name()), start: f.start, depth: f.depth + 1}
		var fi fs.FileInfo
		if fd.follow {
			fi, err = os.Stat(child.abs)
			if err != nil {
				fi, err = os.Lstat(child.abs)
			}
		} else {
			fi, err = os.Lstat(child.abs)
		}
		if err != nil {
			fd.errorf("%s: %s", q(child.path), proc.ErrorText(err))
			continue
		}
		child.fi = fi
		if fd.follow && fi.IsDir() {
			loop := -1
			for i, a := range ancestors {
				if os.SameFile(a, fi) {
					loop = i
				}
			}
			if loop >= 0 {
				anc := f.path
				for range len(ancestors) - 1 - loop {
					anc = path.Dir(anc)
				}
				fd.errorf("File system loop detected; %s is part of the same file system loop as %s.", q(child.path), q(anc))
				continue
			}
		}
		fd.walk(child, ancestors)
	}
}

// flushBatches runs what -exec ... {} + has collected.
func (fd *finder) flushBatches() {
	for _, b := range fd.batches {
		b.flush(fd)
	}
}

// ---- expression parsing ----

type findParser struct {
	fd        *finder
	args      []string
	i         int
	hasAction bool
	delete    bool
}

func (p *findParser) fail(format string, a ...any) {
	p.fd.e.Errorf("find", format, a...)
}

func (p *findParser) parse() (findNode, bool) {
	if len(p.args) == 0 {
		return nil, true
	}
	n, ok := p.parseOr()
	if !ok {
		return nil, false
	}
	if p.i < len(p.args) {
		if p.args[p.i] == ")" {
			p.fail("invalid expression; you have too many ')'")
		} else {
			p.fail("paths must precede expression: %s", q(p.args[p.i]))
		}
		return nil, false
	}
	return n, true
}

func (p *findParser) parseOr() (findNode, bool) {
	left, ok := p.parseAnd()
	if !ok {
		return nil, false
	}
	for p.i < len(p.args) && (p.args[p.i] == "-o" || p.args[p.i] == "-or" || p.args[p.i] == ",") {
		op := p.args[p.i]
		p.i++
		right, ok := p.parseAnd()
		if !ok {
			return nil, false
		}
		if right == nil {
			p.fail("invalid expression; you have used a binary operator '%s' with nothing after it.", op)
			return nil, false
		}
		if op == "," {
			left = &commaNode{left, right}
		} else {
			left = &orNode{left, right}
		}
	}
	return left, true
}

func (p *findParser) parseAnd() (findNode, bool) {
	left, ok := p.parseNot()
	if !ok || left == nil {
		return left, ok
	}
	for p.i < len(p.args) {
		a := p.args[p.i]
		if a == "-o" || a == "-or" || a == ")" || a == "," {
			break
		}
		if a == "-a" || a == "-and" {
			p.i++
		}
		right, ok := p.parseNot()
		if !ok {
			return nil, false
		}
		if right == nil {
			p.fail("invalid expression; you have used a binary operator '%s' with nothing after it.", a)
			return nil, false
		}
		left = &andNode{left, right}
	}
	return left, true
}

func (p *findParser) parseNot() (findNode, bool) {
	if p.i < len(p.args) && (p.args[p.i] == "!" || p.args[p.i] == "-not") {
		p.i++
		n, ok := p.parseNot()
		if !ok {
			return nil, false
		}
		if n == nil {
			p.fail("invalid expression; you have used a binary operator '!' with nothing after it.")
			return nil, false
		}
		return &notNode{n}, true
	}
	return p.parsePrimary()
}

func (p *findParser) next(name string) (string, bool) {
	if p.i >= len(p.args) {
		p.fail("missing argument to `%s'", name)
		return "", false
	}
	a := p.args[p.i]
	p.i++
	return a, true
}

func (p *findParser) parsePrimary() (findNode, bool) {
	if p.i >= len(p.args) {
		return nil, true
	}
	a := p.args[p.i]
	p.i++
	fd := p.fd
	switch a {
	case "(":
		n, ok := p.parseOr()
		if !ok {
			return nil, false
		}
		if p.i >= len(p.args) || p.args[p.i] != ")" {
			p.fail("invalid expression; I was expecting to find a ')' somewhere but did not see one.")
			return nil, false
		}
		p.i++
		if n == nil {
			p.fail("invalid expression; empty parentheses are not allowed.")
			return nil, false
		}
		return n, true
	case ")":
		p.i--
		return nil, true
	case "-maxdepth", "-mindepth":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || strings.HasPrefix(v, "+") {
			p.fail("Expected a positive decimal integer argument to %s, but got %s", a, q(v))
			return nil, false
		}
		if a == "-maxdepth" {
			fd.maxDepth = n
		} else {
			fd.minDepth = n
		}
		return trueNode{}, true
	case "-depth", "-d":
		fd.depthFirst = true
		return trueNode{}, true
	case "-follow":
		fd.follow = true
		return trueNode{}, true
	case "-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-warn", "-nowarn", "-daystart":
		return trueNode{}, true
	case "-regextype":
		_, ok := p.next(a)
		return trueNode{}, ok
	case "-true":
		return trueNode{}, true
	case "-false":
		return notNode{trueNode{}}, true
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-lname", "-ilname":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		return &nameNode{pat: v, fold: strings.HasPrefix(a, "-i"), whole: strings.Contains(a, "path") || strings.Contains(a, "wholename"), link: strings.Contains(a, "lname")}, true
	case "-regex", "-iregex":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		re, err := compileFindRegex(v, a == "-iregex")
		if err != nil {
			p.fail("Invalid regular expression %s", q(v))
			return nil, false
		}
		return &regexNode{re}, true
	case "-type", "-xtype":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		for _, t := range strings.Split(v, ",") {
			if len(t) != 1 || !strings.Contains("fdlpsbcD", t) {
				if len(t) > 1 {
					p.fail("Must separate multiple arguments to %s using: ','", a)
				} else {
					p.fail("Unknown argument to %s: %s", a, t)
				}
				return nil, false
			}
		}
		return &typeNode{types: v, x: a == "-xtype"}, true
	case "-size":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		n, ok := parseFindSize(v)
		if !ok {
			if c := strings.TrimLeft(v, "+-0123456789"); len(c) > 0 && c != v {
				p.fail("invalid -size type `%s'", c[:1])
			} else {
				p.fail("invalid argument `%s' to `-size'", v)
			}
			return nil, false
		}
		return n, true
	case "-empty":
		return emptyNode{}, true
	case "-newer", "-anewer", "-cnewer":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		fi, err := os.Stat(fd.e.Path(v))
		if err != nil {
			p.fail("%s: %s", q(v), proc.ErrorText(err))
			return nil, false
		}
		return &newerNode{fi.ModTime()}, true
	case "-newermt", "-newerat", "-newerct":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		t, ok := parseDate(v, fd.now, location(fd.e.Getenv("TZ"), fd.e.LookupEnv))
		if !ok {
			p.fail("I cannot figure out how to interpret %s as a date or time", q(v))
			return nil, false
		}
		return &newerNode{t}, true
	case "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		cmp, n, ok := parseFindNum(v)
		if !ok {
			p.fail("invalid argument `%s' to `%s'", v, a)
			return nil, false
		}
		unit := 24 * time.Hour
		if strings.HasSuffix(a, "min") {
			unit = time.Minute
		}
		return &ageNode{cmp: cmp, n: n, unit: unit}, true
	case "-links", "-inum", "-uid", "-gid":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		cmp, n, ok := parseFindNum(v)
		if !ok {
			p.fail("invalid argument `%s' to `%s'", v, a)
			return nil, false
		}
		return &numNode{what: a, cmp: cmp, n: n}, true
	case "-user", "-group":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		if v != sandboxUser && v != itoa(sandboxUID) {
			if _, err := strconv.Atoi(v); err != nil {
				p.fail("%s is not the name of a known %s", q(v), a[1:])
				return nil, false
			}
		}
		return boolNode(v == sandboxUser || v == itoa(sandboxUID)), true
	case "-nouser", "-nogroup":
		return boolNode(false), true
	case "-perm":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		kind := byte('=')
		m := v
		if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "/") {
			kind, m = v[0], v[1:]
		}
		changes, ok := parseMode(m)
		if !ok {
			p.fail("invalid mode %s", q(v))
			return nil, false
		}
		return &permNode{kind: kind, mode: applyMode(changes, 0, false)}, true
	case "-readable", "-writable", "-executable":
		return accessNode(a[1]), true
	case "-samefile":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		fi, err := os.Stat(fd.e.Path(v))
		if err != nil {
			p.fail("%s: %s", q(v), proc.ErrorText(err))
			return nil, false
		}
		return &sameNode{fi}, true
	case "-fstype":
		v, ok := p.next(a)
		return boolNode(v == "wasi"), ok
	case "-print":
		p.hasAction = true
		return &printNode{}, true
	case "-print0":
		p.hasAction = true
		return &printNode{end: "\x00"}, true
	case "-printf":
		v, ok := p.next(a)
		if !ok {
			return nil, false
		}
		p.hasAction = true
		return &printfNode{format: v}, true
	case "-fprint", "-fprint0", "-fprintf", "-fls":
		p.fail("%s is not supported in the sandbox; redirect -print instead", a)
		return nil, false
	case "-ls":
		p.hasAction = true
		return lsNode{}, true
	case "-delete":
		p.hasAction, p.delete = true, true
		return deleteNode{}, true
	case "-prune":
		return pruneNode{}, true
	case "-quit":
		return quitNode{}, true
	case "-exec", "-execdir", "-ok", "-okdir":
		p.hasAction = true
		var cmd []string
		for {
			if p.i >= len(p.args) {
				p.fail("missing argument to `%s'", a)
				return nil, false
			}
			v := p.args[p.i]
			p.i++
			if v == ";" {
				break
			}
			if v == "+" && len(cmd) > 0 && cmd[len(cmd)-1] == "{}" {
				n := &execNode{cmd: cmd[:len(cmd)-1], batch: true}
				fd.batches = append(fd.batches, n)
				return n, true
			}
			cmd = append(cmd, v)
		}
		if len(cmd) == 0 {
			p.fail("missing argument to `%s'", a)
			return nil, false
		}
		return &execNode{cmd: cmd, ask: strings.HasPrefix(a, "-ok")}, true
	}
	if strings.HasPrefix(a, "-") {
		p.fail("unknown predicate `%s'", a)
	} else {
		p.fail("paths must precede expression: %s", q(a))
	}
	return nil, false
}

// ---- operators ----

type andNode struct{ a, b findNode }

// Operators stop evaluating once -quit has run: GNU find exits there.
func (n *andNode) eval(fd *finder, f *findFile) bool {
	return n.a.eval(fd, f) && !fd.quit && n.b.eval(fd, f)
}

type orNode struct{ a, b findNode }

func (n *orNode) eval(fd *finder, f *findFile) bool {
	return n.a.eval(fd, f) || (!fd.quit && n.b.eval(fd, f))
}

type commaNode struct{ a, b findNode }

func (n *commaNode) eval(fd *finder, f *findFile) bool {
	n.a.eval(fd, f)
	return !fd.quit && n.b.eval(fd, f)
}

type notNode struct{ a findNode }

func (n notNode) eval(fd *finder, f *findFile) bool { return !n.a.eval(fd, f) }

type trueNode struct{}

func (trueNode) eval(*finder, *findFile) bool { return true }

type boolNode bool

func (b boolNode) eval(*finder, *findFile) bool { return bool(b) }

// ---- tests ----

type nameNode struct {
	pat               string
	fold, whole, link bool
}

func (n *nameNode) eval(fd *finder, f *findFile) bool {
	flags := 0
	if n.fold {
		flags = fnmCasefold
	}
	switch {
	case n.link:
		if f.fi.Mode()&fs.ModeSymlink == 0 {
			return false
		}
		t, err := os.Readlink(f.abs)
		return err == nil && fnmatch(n.pat, t, flags)
	case n.whole:
		return fnmatch(n.pat, f.path, flags)
	}
	return fnmatch(n.pat, f.name(), flags)
}

type regexNode struct{ re *regexp.Regexp }

func (n *regexNode) eval(fd *finder, f *findFile) bool { return n.re.MatchString(f.path) }

// compileFindRegex translates find's default (emacs) regular expression
// syntax to Go's: \( \) \| group and alternate, bare ( ) | { } are
// literal; the match must cover the whole path.
func compileFindRegex(s string, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case '(', ')', '|':
				b.WriteByte(s[i])
			case '{', '}':
				b.WriteByte(s[i])
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		case c == '(' || c == ')' || c == '|' || c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	expr := "^(?:" + b.String() + ")$"
	if fold {
		expr = "(?i)" + expr
	}
	return regexp.Compile(expr)
}

type typeNode struct {
	types string
	x     bool
}

func (n *typeNode) eval(fd *finder, f *findFile) bool {
	fi := f.fi
	if n.x {
		if fi.Mode()&fs.ModeSymlink != 0 {
			if s, err := os.Stat(f.abs); err == nil {
				fi = s
			}
		} else if fd.follow {
			if l, err := os.Lstat(f.abs); err == nil {
				fi = l
			}
		}
	}
	m := fi.Mode()
	var c byte
	switch {
	case m.IsDir():
		c = 'd'
	case m&fs.ModeSymlink != 0:
		c = 'l'
	case m&fs.ModeNamedPipe != 0:
		c = 'p'
	case m&fs.ModeSocket != 0:
		c = 's'
	case m&fs.ModeCharDevice != 0:
		c = 'c'
	case m&fs.ModeDevice != 0:
		c = 'b'
	default:
		c = 'f'
	}
	return strings.IndexByte(n.types, c) >= 0
}

// parseFindNum parses "+N", "-N" or "N" into a comparison (+1 more than,
// -1 less than, 0 exactly) and a number.
func parseFindNum(s string) (cmp int, n int64, ok bool) {
	switch {
	case strings.HasPrefix(s, "+"):
		cmp, s = 1, s[1:]
	case strings.HasPrefix(s, "-"):
		cmp, s = -1, s[1:]
	}
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return cmp, n, err == nil
}

func compare(cmp int, v, n int64) bool {
	switch cmp {
	case 1:
		return v > n
	case -1:
		return v < n
	}
	return v == n
}

type sizeNode struct {
	cmp  int
	n    int64
	unit int64
}

func parseFindSize(s string) (*sizeNode, bool) {
	unit := int64(512)
	if s != "" {
		switch s[len(s)-1] {
		case 'c':
			unit = 1
		case 'w':
			unit = 2
		case 'b':
			unit = 512
		case 'k':
			unit = 1024
		case 'M':
			unit = 1 << 20
		case 'G':
			unit = 1 << 30
		}
		if c := s[len(s)-1]; c < '0' || c > '9' {
			if !strings.ContainsRune("cwbkMG", rune(c)) {
				return nil, false
			}
			s = s[:len(s)-1]
		}
	}
	cmp, n, ok := parseFindNum(s)
	if !ok {
		return nil, false
	}
	return &sizeNode{cmp, n, unit}, true
}

// eval compares the size in units rounded up, as GNU find does: -size
// -1M matches only empty files.
func (n *sizeNode) eval(fd *finder, f *findFile) bool {
	size := f.fi.Size()
	units := (size + n.unit - 1) / n.unit
	return compare(n.cmp, units, n.n)
}

type emptyNode struct{}

func (emptyNode) eval(fd *finder, f *findFile) bool {
	switch {
	case f.fi.IsDir():
		d, err := os.Open(f.abs)
		if err != nil {
			return false
		}
		defer d.Close()
		names, _ := d.Readdirnames(1)
		return len(names) == 0
	case f.fi.Mode().IsRegular():
		return f.fi.Size() == 0
	}
	return false
}

type newerNode struct{ t time.Time }

func (n *newerNode) eval(fd *finder, f *findFile) bool { return f.fi.ModTime().After(n.t) }

// ageNode is -mtime and -mmin (and the a/c variants, which use the
// modification time: fs.FileInfo has no other). The age is counted in
// whole units, rounding down, as GNU does.
type ageNode struct {
	cmp  int
	n    int64
	unit time.Duration
}

func (n *ageNode) eval(fd *finder, f *findFile) bool {
	age := fd.now.Sub(f.fi.ModTime())
	if n.unit == time.Minute {
		// -mmin compares the exact age: -mmin -5 is "less than 5 minutes".
		m := float64(age) / float64(time.Minute)
		switch n.cmp {
		case 1:
			return m > float64(n.n)
		case -1:
			return m < float64(n.n)
		}
		return int64(m+0.999999999) == n.n || (m <= 0 && n.n == 0)
	}
	units := int64(age / n.unit)
	if age < 0 {
		units = -1
	}
	return compare(n.cmp, units, n.n)
}

type numNode struct {
	what string
	cmp  int
	n    int64
}

func (n *numNode) eval(fd *finder, f *findFile) bool {
	switch n.what {
	case "-links":
		return compare(n.cmp, int64(nlink(lsEntry{path: f.abs, fi: f.fi})), n.n)
	case "-uid", "-gid":
		return compare(n.cmp, sandboxUID, n.n)
	}
	return false
}

type permNode struct {
	kind byte
	mode uint32
}

func (n *permNode) eval(fd *finder, f *findFile) bool {
	m := unixMode(f.fi.Mode())
	switch n.kind {
	case '-':
		return m&n.mode == n.mode
	case '/':
		return n.mode == 0 || m&n.mode != 0
	}
	return m == n.mode
}

// accessNode answers -readable, -writable and -executable from the
// owner's permission bits: the sandbox user owns every file.
type accessNode byte

func (a accessNode) eval(fd *finder, f *findFile) bool {
	m := f.fi.Mode()
	switch a {
	case 'r':
		return m&0o400 != 0
	case 'w':
		return m&0o200 != 0
	}
	return m&0o100 != 0 || (m.IsDir() && m&0o100 != 0)
}

type sameNode struct{ fi fs.FileInfo }

func (n *sameNode) eval(fd *finder, f *findFile) bool {
	fi, err := os.Stat(f.abs)
	return err == nil && os.SameFile(fi, n.fi)
}

// ---- actions ----

type printNode struct{ end string }

func (n *printNode) eval(fd *finder, f *findFile) bool {
	end := n.end
	if end == "" {
		end = "\n"
	}
	_, _ = fd.w.WriteString(f.path + end)
	return true
}

type pruneNode struct{}

func (pruneNode) eval(fd *finder, f *findFile) bool {
	if !fd.depthFirst {
		fd.prune = true
	}
	return true
}

type quitNode struct{}

func (quitNode) eval(fd *finder, f *findFile) bool {
	fd.quit = true
	return true
}

type deleteNode struct{}

func (deleteNode) eval(fd *finder, f *findFile) bool {
	if f.depth == 0 && (f.path == "." || f.path == "./") {
		return true // GNU find -delete never removes the starting ".".
	}
	err := os.Remove(f.abs)
	if err != nil {
		if isNotEmpty(err) {
			err = errNotEmpty
		}
		fd.errorf("cannot delete %s: %s", q(f.path), proc.ErrorText(err))
		return false
	}
	return true
}

type lsNode struct{}

// eval writes the find -ls line: inode (0: unavailable), 1K blocks,
// mode, links, owner, group, size, time and name.
func (lsNode) eval(fd *finder, f *findFile) bool {
	l := &lister{e: fd.e, now: fd.now}
	name := f.path
	if f.fi.Mode()&fs.ModeSymlink != 0 {
		if t, err := os.Readlink(f.abs); err == nil {
			name += " -> " + t
		}
	}
	fmt.Fprintf(fd.w, "%9d %6d %s %3d %-8s %-8s %8d %s %s\n", 0, blocks1K(f.fi), modeString(f.fi.Mode()), nlink(lsEntry{path: f.abs, fi: f.fi}), sandboxUser, sandboxUser, f.fi.Size(), l.timeString(f.fi.ModTime()), name)
	return true
}

// execNode runs -exec (and -ok, which the sandbox cannot ask about, so
// it runs like -exec) through the shell. -execdir is approximated by
// -exec: proc.Env.Exec cannot change directory, so the command runs in
// find's directory with {} the path find printed.
type execNode struct {
	cmd     []string
	batch   bool
	ask     bool
	pending []string
	size    int
}

func (n *execNode) eval(fd *finder, f *findFile) bool {
	if n.batch {
		n.pending = append(n.pending, f.path)
		n.size += len(f.path) + 1
		if n.size > 128<<10 {
			n.flush(fd)
		}
		return true
	}
	args := make([]string, len(n.cmd))
	for i, a := range n.cmd {
		args[i] = strings.ReplaceAll(a, "{}", f.path)
	}
	_ = fd.w.Flush()
	return fd.run(args) == 0
}

func (n *execNode) flush(fd *finder) {
	if len(n.pending) == 0 {
		return
	}
	args := append(append([]string(nil), n.cmd...), n.pending...)
	n.pending, n.size = nil, 0
	_ = fd.w.Flush()
	if fd.run(args) != 0 {
		fd.status = 1
	}
}

func (fd *finder) run(args []string) int {
	if fd.e.Exec == nil {
		return 127
	}
	return fd.e.Exec(args, fd.e.Stdin, fd.e.Stdout, fd.e.Stderr)
}
