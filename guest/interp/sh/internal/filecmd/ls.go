package filecmd

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// ls always uses the format GNU ls uses when standard output is not a
// terminal (one name per line, no colors, no quoting), because a script's
// output never goes to a terminal in the sandbox.
type lister struct {
	e                               *proc.Env
	w                               *bufio.Writer
	all, almost, dirOnly            bool
	recursive, reverse, human, si   bool
	numeric, noOwner, noGroup       bool
	classify, slash, fileType, size bool
	inode, deref, quote, backups    bool
	sortBy                          byte // 'n'ame, 't'ime, 'S'ize, 'X' extension, 'v'ersion, 'U' none
	format                          byte // '1', 'l', 'C', 'x', 'm'
	timeStyle                       string
	ignore                          []string
	now                             time.Time
	status                          int
	first                           bool
	widthsFrom                      []lsEntry // more entries to size columns by
}

// An lsEntry is one name to list and what Lstat (or Stat) said about it.
type lsEntry struct {
	name string // as printed
	path string // absolute
	fi   fs.FileInfo
}

func ls(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "ls", 2, proc.Getopt{Spec: "a,all A,almost-all ,author b,escape ,block-size: B,ignore-backups c C ,color:: d,directory D,dired f F,classify:: ,file-type ,format: ,full-time g ,group-directories-first G,no-group h,human-readable ,si H,dereference-command-line ,dereference-command-line-symlink-to-dir ,hide: ,hyperlink:: ,indicator-style: i,inode I,ignore: k,kibibytes l L,dereference m n,numeric-uid-gid N,literal o p q,hide-control-chars ,show-control-chars Q,quote-name ,quoting-style: r,reverse R,recursive s,size S ,sort: ,time: ,time-style: t T,tabsize: u U v w,width: x X Z,context ,zero 1"}, args[1:])
	if !ok {
		return st
	}
	l := &lister{e: e, sortBy: 'n', format: '1', now: time.Now(), first: true}
	for _, o := range opts {
		switch o.Key {
		case "a":
			l.all = true
		case "A":
			l.almost = true
		case "B":
			l.backups = true
		case "C", "x", "m":
			l.format = o.Key[0]
		case "d":
			l.dirOnly = true
		case "f":
			l.all, l.sortBy = true, 'U'
		case "F":
			l.classify = true
		case "file-type":
			l.fileType = true
		case "full-time":
			l.format, l.timeStyle = 'l', "full-iso"
		case "format":
			switch o.Val {
			case "long", "verbose":
				l.format = 'l'
			case "single-column":
				l.format = '1'
			case "commas":
				l.format = 'm'
			case "across", "horizontal":
				l.format = 'x'
			case "vertical":
				l.format = 'C'
			}
		case "g":
			l.format, l.noOwner = 'l', true
		case "G":
			l.noGroup = true
		case "h":
			l.human = true
		case "si":
			l.human, l.si = true, true
		case "i":
			l.inode = true
		case "I", "hide":
			l.ignore = append(l.ignore, o.Val)
		case "l":
			l.format = 'l'
		case "L":
			l.deref = true
		case "n":
			l.format, l.numeric = 'l', true
		case "o":
			l.format, l.noGroup = 'l', true
		case "p":
			l.slash = true
		case "Q":
			l.quote = true
		case "r":
			l.reverse = true
		case "R":
			l.recursive = true
		case "s":
			l.size = true
		case "S":
			l.sortBy = 'S'
		case "t":
			l.sortBy = 't'
		case "U":
			l.sortBy = 'U'
		case "v":
			l.sortBy = 'v'
		case "X":
			l.sortBy = 'X'
		case "sort":
			l.sortBy = map[string]byte{"none": 'U', "size": 'S', "time": 't', "version": 'v', "extension": 'X', "name": 'n'}[o.Val]
		case "time-style":
			l.timeStyle = strings.TrimPrefix(o.Val, "posix-")
		case "1":
			l.format = '1'
		}
	}
	l.w = bufio.NewWriter(e.Stdout)
	defer func() { _ = l.w.Flush() }()
	if len(ops) == 0 {
		ops = []string{"."}
	}
	var files, dirs []lsEntry
	for _, name := range ops {
		p := e.Path(name)
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 && (l.deref || (!l.dirOnly && l.format != 'l' && !l.classify) || strings.HasSuffix(name, "/")) {
			if sfi, serr := os.Stat(p); serr == nil {
				fi = sfi
			}
		}
		if err != nil {
			_ = l.w.Flush()
			e.Errorf("ls", "cannot access %s: %s", qa(name), proc.ErrorText(err))
			l.status = 2
			continue
		}
		ent := lsEntry{name: name, path: p, fi: fi}
		if fi.IsDir() && !l.dirOnly {
			dirs = append(dirs, ent)
		} else {
			files = append(files, ent)
		}
	}
	l.sort(files)
	l.sort(dirs)
	if len(files) > 0 {
		// GNU sizes the columns over all operands, directories included.
		l.widthsFrom = dirs
		l.print(files, false)
		l.widthsFrom = nil
		l.first = false
	}
	header := len(ops) > 1 || l.recursive
	for _, d := range dirs {
		l.listDir(d.name, d.path, header, 2)
	}
	return l.status
}

// listDir lists one directory (and, with -R, those below it).
func (l *lister) listDir(name, p string, header bool, failStatus int) {
	if l.e.Cancelled() {
		return
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		_ = l.w.Flush()
		l.e.Errorf("ls", "cannot open directory %s: %s", qa(name), proc.ErrorText(err))
		l.status = max(l.status, failStatus)
		return
	}
	var list []lsEntry
	if l.all {
		for _, dot := range []string{".", ".."} {
			if fi, err := os.Stat(path.Join(p, dot)); err == nil {
				list = append(list, lsEntry{name: dot, path: path.Join(p, dot), fi: fi})
			}
		}
	}
	for _, de := range entries {
		n := de.Name()
		if !l.show(n) {
			continue
		}
		ep := path.Join(p, n)
		var fi fs.FileInfo
		if l.deref {
			fi, err = os.Stat(ep)
		}
		if fi == nil {
			fi, err = os.Lstat(ep)
		}
		if err != nil {
			_ = l.w.Flush()
			l.e.Errorf("ls", "cannot access %s: %s", qa(joinPath(name, n)), proc.ErrorText(err))
			l.status = max(l.status, 1)
			continue
		}
		list = append(list, lsEntry{name: n, path: ep, fi: fi})
	}
	l.sort(list)
	if header {
		if !l.first {
			_, _ = l.w.WriteString("\n")
		}
		_, _ = l.w.WriteString(name + ":\n")
	}
	l.first = false
	l.print(list, true)
	if !l.recursive {
		return
	}
	for _, ent := range list {
		if ent.fi.IsDir() && ent.name != "." && ent.name != ".." {
			l.listDir(joinPath(name, ent.name), ent.path, true, 1)
		}
	}
}

func (l *lister) show(name string) bool {
	if strings.HasPrefix(name, ".") && !l.all && !l.almost {
		return false
	}
	if l.backups && strings.HasSuffix(name, "~") {
		return false
	}
	for _, pat := range l.ignore {
		if fnmatch(pat, name, fnmPeriod) {
			return false
		}
	}
	return true
}

// sort orders entries as GNU ls does in the C locale: by bytes of the
// name, or by the chosen key with the name breaking ties; -r reverses
// the whole order.
func (l *lister) sort(list []lsEntry) {
	if l.sortBy == 'U' {
		return
	}
	less := func(a, b lsEntry) bool {
		switch l.sortBy {
		case 't':
			if ta, tb := a.fi.ModTime(), b.fi.ModTime(); !ta.Equal(tb) {
				return ta.After(tb)
			}
		case 'S':
			if a.fi.Size() != b.fi.Size() {
				return a.fi.Size() > b.fi.Size()
			}
		case 'X':
			if xa, xb := extension(a.name), extension(b.name); xa != xb {
				return xa < xb
			}
		case 'v':
			if c := versionCompare(a.name, b.name); c != 0 {
				return c < 0
			}
		}
		return a.name < b.name
	}
	sort.SliceStable(list, func(i, j int) bool {
		if l.reverse {
			return less(list[j], list[i])
		}
		return less(list[i], list[j])
	})
}

func extension(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}

// versionCompare orders names with digit runs compared as numbers
// ("file2" before "file10"), a simplification of GNU's filevercmp.
func versionCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := a[0] >= '0' && a[0] <= '9', b[0] >= '0' && b[0] <= '9'
		if da && db {
			i, j := 0, 0
			for i < len(a) && a[i] >= '0' && a[i] <= '9' {
				i++
			}
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			na, nb := strings.TrimLeft(a[:i], "0"), strings.TrimLeft(b[:j], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if na != nb {
				return strings.Compare(na, nb)
			}
			a, b = a[i:], b[j:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

// indicator is the -F / -p suffix of an entry.
func (l *lister) indicator(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case !l.classify && !l.slash && !l.fileType:
		return ""
	case m.IsDir():
		return "/"
	case l.slash:
		return ""
	case m&fs.ModeSymlink != 0:
		return "@"
	case m&fs.ModeNamedPipe != 0:
		return "|"
	case m&fs.ModeSocket != 0:
		return "="
	case m.IsRegular() && m&0o111 != 0 && l.classify:
		return "*"
	}
	return ""
}

func (l *lister) displayName(name string) string {
	if l.quote {
		return `"` + strings.ReplaceAll(name, `"`, `\"`) + `"`
	}
	return name
}

// print writes a list of entries in the chosen format; inDir says
// whether they are a directory's contents (which get a "total" line in
// long format).
func (l *lister) print(list []lsEntry, inDir bool) {
	if (l.format == 'l' || l.size) && inDir {
		var total int64
		for _, ent := range list {
			total += blocks1K(ent.fi)
		}
		if l.human {
			_, _ = l.w.WriteString("total " + l.humanSize(total*1024) + "\n")
		} else {
			fmt.Fprintf(l.w, "total %d\n", total)
		}
	}
	if l.format == 'l' {
		l.printLong(list)
		return
	}
	names := make([]string, len(list))
	for i, ent := range list {
		n := l.displayName(ent.name) + l.indicator(ent.fi)
		if l.size {
			n = fmt.Sprintf("%*s %s", l.blockWidth(list), l.blocks(ent.fi), n)
		}
		if l.inode {
			n = "0 " + n
		}
		names[i] = n
	}
	switch l.format {
	case 'm':
		l.printCommas(names)
	case 'C', 'x':
		l.printColumns(names, l.format == 'x')
	default:
		for _, n := range names {
			_, _ = l.w.WriteString(n + "\n")
		}
	}
}

func (l *lister) blocks(fi fs.FileInfo) string {
	if l.human {
		return l.humanSize(blocks1K(fi) * 1024)
	}
	return fmt.Sprint(blocks1K(fi))
}

func (l *lister) blockWidth(list []lsEntry) int {
	w := 0
	for _, ent := range list {
		w = max(w, len(l.blocks(ent.fi)))
	}
	return w
}

func (l *lister) humanSize(n int64) string {
	if l.si {
		return humanSize(n, 1000)
	}
	return humanSize(n, 1024)
}

// printCommas writes ls -m output: names separated by ", ", wrapped
// before 80 columns.
func (l *lister) printCommas(names []string) {
	col := 0
	for i, n := range names {
		sep := ""
		if i < len(names)-1 {
			sep = ","
		}
		if i > 0 {
			if col+1+len(n)+len(sep) > 80 {
				_, _ = l.w.WriteString("\n")
				col = 0
			} else {
				_, _ = l.w.WriteString(" ")
				col++
			}
		}
		_, _ = l.w.WriteString(n + sep)
		col += len(n) + len(sep)
	}
	if len(names) > 0 {
		_, _ = l.w.WriteString("\n")
	}
}

// printColumns writes ls -C (down columns) or -x (across) output for an
// 80-column line, as GNU ls does when told to use columns off a
// terminal: as many columns as fit, each as wide as its widest name plus
// two spaces.
func (l *lister) printColumns(names []string, across bool) {
	if len(names) == 0 {
		return
	}
	const width = 80
	bestCols, bestWidths := 1, []int(nil)
	for cols := len(names); cols >= 1; cols-- {
		rows := (len(names) + cols - 1) / cols
		if !across && (cols-1)*rows >= len(names) {
			continue
		}
		widths := make([]int, cols)
		for i, n := range names {
			c := i / rows
			if across {
				c = i % cols
			}
			widths[c] = max(widths[c], len(n))
		}
		total := 0
		for c, w := range widths {
			if c < cols-1 {
				w += 2
			}
			total += w
		}
		if total < width {
			bestCols, bestWidths = cols, widths
			break
		}
	}
	cols := bestCols
	rows := (len(names) + cols - 1) / cols
	for r := 0; r < rows; r++ {
		var line strings.Builder
		for c := 0; c < cols; c++ {
			i := c*rows + r
			if across {
				i = r*cols + c
			}
			if i >= len(names) {
				break
			}
			line.WriteString(names[i])
			last := c == cols-1 || (!across && (c+1)*rows+r >= len(names)) || (across && i+1 >= len(names))
			if !last && bestWidths != nil {
				line.WriteString(strings.Repeat(" ", bestWidths[c]+2-len(names[i])))
			}
		}
		_, _ = l.w.WriteString(line.String() + "\n")
	}
}

// nlink approximates a link count without st_nlink: 1 for files, and
// for directories 2 plus the number of subdirectories, which is what
// ext4 reports.
func nlink(ent lsEntry) int {
	if !ent.fi.IsDir() {
		return 1
	}
	n := 2
	entries, _ := os.ReadDir(ent.path)
	for _, de := range entries {
		if de.IsDir() {
			n++
		}
	}
	return n
}

func (l *lister) timeString(t time.Time) string {
	t = t.In(location(l.e.Getenv("TZ"), l.e.LookupEnv))
	switch l.timeStyle {
	case "full-iso":
		return strftime(t, "%Y-%m-%d %H:%M:%S.%N %z")
	case "long-iso":
		return strftime(t, "%Y-%m-%d %H:%M")
	case "iso":
		if l.recent(t) {
			return strftime(t, "%m-%d %H:%M")
		}
		return strftime(t, "%Y-%m-%d ")
	}
	if strings.HasPrefix(l.timeStyle, "+") {
		return strftime(t, l.timeStyle[1:])
	}
	if l.recent(t) {
		return strftime(t, "%b %e %H:%M")
	}
	return strftime(t, "%b %e  %Y")
}

// recent reports whether t is within the last six months (and not in
// the future), which decides between showing the time and the year.
func (l *lister) recent(t time.Time) bool {
	const halfYear = 31556952 / 2 * time.Second
	return t.After(l.now.Add(-halfYear)) && !t.After(l.now)
}

func (l *lister) printLong(list []lsEntry) {
	type row struct{ inode, blocks, mode, links, owner, group, size, when, name string }
	var wb, wl, wo, wg, ws int
	owner := sandboxUser
	if l.numeric {
		owner = itoa(sandboxUID)
	}
	all := append(append([]lsEntry(nil), list...), l.widthsFrom...)
	rows := make([]row, len(all))
	for i, ent := range all {
		r := row{mode: modeString(ent.fi.Mode()), links: itoa(nlink(ent)), owner: owner, group: owner}
		if l.inode {
			r.inode = "0 "
		}
		if l.size {
			r.blocks = l.blocks(ent.fi)
		}
		if l.human {
			r.size = l.humanSize(ent.fi.Size())
		} else {
			r.size = fmt.Sprint(ent.fi.Size())
		}
		r.when = l.timeString(ent.fi.ModTime())
		r.name = l.displayName(ent.name)
		if ent.fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := os.Readlink(ent.path); err == nil {
				r.name += " -> " + l.displayName(target)
				if l.classify {
					if tfi, err := os.Stat(ent.path); err == nil {
						r.name += l.indicator(tfi)
					}
				}
			}
		} else {
			r.name += l.indicator(ent.fi)
		}
		wb, wl, ws = max(wb, len(r.blocks)), max(wl, len(r.links)), max(ws, len(r.size))
		wo, wg = max(wo, len(r.owner)), max(wg, len(r.group))
		rows[i] = r
	}
	for _, r := range rows[:len(list)] {
		var b strings.Builder
		b.WriteString(r.inode)
		if l.size {
			fmt.Fprintf(&b, "%*s ", wb, r.blocks)
		}
		fmt.Fprintf(&b, "%s %*s ", r.mode, wl, r.links)
		if !l.noOwner {
			fmt.Fprintf(&b, "%-*s ", wo, r.owner)
		}
		if !l.noGroup {
			fmt.Fprintf(&b, "%-*s ", wg, r.group)
		}
		fmt.Fprintf(&b, "%*s %s %s\n", ws, r.size, r.when, r.name)
		_, _ = l.w.WriteString(b.String())
	}
}
