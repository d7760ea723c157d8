package filecmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// differ holds diff's options. Output formats: normal, -u/-U (unified),
// -c/-C (context), -q (brief); -r compares directories recursively.
type differ struct {
	e                               *proc.Env
	w                               *bufio.Writer
	format                          byte // 'n', 'u', 'c'
	context                         int
	brief, recursive, newFile, same bool
	ignoreCase, ignoreSpace         bool
	ignoreAllSpace, stripCR, text   bool
	labels                          []string
	optArgs                         []string // options as given, for "diff -r a/x b/x" lines
	inDirs                          bool
	status                          int
}

func diffCmd(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "diff", 2, proc.Getopt{Spec: "a,text b,ignore-space-change B,ignore-blank-lines c C,context:: ,color:: d,minimal e,ed i,ignore-case ,label: N,new-file ,normal q,brief r,recursive s,report-identical-files ,strip-trailing-cr t,expand-tabs u U,unified:: w,ignore-all-space y,side-by-side W,width: x,exclude: ,no-dereference ,suppress-common-lines ,speed-large-files H"}, args[1:])
	if !ok {
		return st
	}
	d := &differ{e: e, format: 'n', context: 3}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			d.optArgs = append(d.optArgs, a)
		}
	}
	for _, o := range opts {
		switch o.Key {
		case "a":
			d.text = true
		case "b":
			d.ignoreSpace = true
		case "w":
			d.ignoreAllSpace = true
		case "i":
			d.ignoreCase = true
		case "c", "C", "u", "U":
			d.format = 'u'
			if o.Key == "c" || o.Key == "C" {
				d.format = 'c'
			}
			if o.HasVal {
				var n int
				if _, err := fmt.Sscanf(o.Val, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != o.Val {
					e.Errorf("diff", "invalid context length %s", q(o.Val))
					e.TryHelp("diff")
					return 2
				}
				d.context = n
			}
		case "label":
			d.labels = append(d.labels, o.Val)
		case "N":
			d.newFile = true
		case "normal":
			d.format = 'n'
		case "q":
			d.brief = true
		case "r":
			d.recursive = true
		case "s":
			d.same = true
		case "strip-trailing-cr":
			d.stripCR = true
		case "e", "y":
			e.Errorf("diff", "option -%s is not supported in the sandbox", o.Key)
			return 2
		}
	}
	switch {
	case len(ops) < 2:
		after := "diff"
		if len(ops) == 1 {
			after = ops[0]
		}
		return diffUsage(e, "diff", "missing operand after '%s'", after)
	case len(ops) > 2:
		return diffUsage(e, "diff", "extra operand '%s'", ops[2])
	}
	d.w = bufio.NewWriter(e.Stdout)
	defer func() { _ = d.w.Flush() }()
	a, b := ops[0], ops[1]
	fa, erra := d.stat(a)
	fb, errb := d.stat(b)
	if erra != nil || errb != nil {
		for _, x := range []struct {
			name string
			err  error
		}{{a, erra}, {b, errb}} {
			if x.err != nil {
				e.Errorf("diff", "%s: %s", x.name, proc.ErrorText(x.err))
			}
		}
		return 2
	}
	// Standard input ("-") has no FileInfo and is never a directory.
	dirA, dirB := fa != nil && fa.IsDir(), fb != nil && fb.IsDir()
	switch {
	case dirA && dirB:
		d.diffDirs(a, b)
	case dirA:
		d.diffFiles(path.Join(a, baseName(b)), b)
	case dirB:
		d.diffFiles(a, path.Join(b, baseName(a)))
	default:
		d.diffFiles(a, b)
	}
	return d.status
}

func (d *differ) stat(name string) (fs.FileInfo, error) {
	if name == "-" {
		return nil, nil
	}
	return os.Stat(d.e.Path(name))
}

func (d *differ) setStatus(s int) { d.status = max(d.status, s) }

// read returns a file's contents and its time for the headers.
func (d *differ) read(name string) ([]byte, time.Time, error) {
	if name == "-" {
		data, err := io.ReadAll(d.e.Stdin)
		return data, time.Now(), err
	}
	p := d.e.Path(name)
	fi, err := os.Stat(p)
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := os.ReadFile(p)
	return data, fi.ModTime(), err
}

func (d *differ) diffFiles(a, b string) {
	da, ta, err := d.read(a)
	if err != nil && !(d.newFile && isNotExist(err)) {
		_ = d.w.Flush()
		d.e.Errorf("diff", "%s: %s", a, proc.ErrorText(err))
		d.setStatus(2)
		return
	}
	db, tb, err := d.read(b)
	if err != nil && !(d.newFile && isNotExist(err)) {
		_ = d.w.Flush()
		d.e.Errorf("diff", "%s: %s", b, proc.ErrorText(err))
		d.setStatus(2)
		return
	}
	if bytes.Equal(da, db) {
		if d.same {
			fmt.Fprintf(d.w, "Files %s and %s are identical\n", a, b)
		}
		return
	}
	if !d.text && (isBinary(da) || isBinary(db)) {
		fmt.Fprintf(d.w, "Binary files %s and %s differ\n", a, b)
		d.setStatus(1)
		return
	}
	la, lb := splitLines(da), splitLines(db)
	ids := map[string]int{}
	key := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			k := d.normalize(l)
			id, ok := ids[k]
			if !ok {
				id = len(ids)
				ids[k] = id
			}
			out[i] = id
		}
		return out
	}
	ca, cb := diffLines(key(la), key(lb))
	hunks := buildHunks(ca, cb)
	if len(hunks) == 0 {
		if d.same {
			fmt.Fprintf(d.w, "Files %s and %s are identical\n", a, b)
		}
		return
	}
	d.setStatus(1)
	if d.brief {
		fmt.Fprintf(d.w, "Files %s and %s differ\n", a, b)
		return
	}
	if d.inDirs {
		fmt.Fprintf(d.w, "diff %s%s %s\n", strings.Join(append(d.optArgs, ""), " "), a, b)
	}
	labelA, labelB := a+"\t"+d.stamp(ta), b+"\t"+d.stamp(tb)
	if len(d.labels) > 0 {
		labelA = d.labels[0]
	}
	if len(d.labels) > 1 {
		labelB = d.labels[1]
	}
	switch d.format {
	case 'u':
		fmt.Fprintf(d.w, "--- %s\n+++ %s\n", labelA, labelB)
		d.unified(la, lb, hunks)
	case 'c':
		fmt.Fprintf(d.w, "*** %s\n--- %s\n", labelA, labelB)
		d.contextDiff(la, lb, hunks)
	default:
		d.normal(la, lb, hunks)
	}
}

func (d *differ) stamp(t time.Time) string {
	return stampNano(t.In(location(d.e.Getenv("TZ"), d.e.LookupEnv)))
}

// normalize is the line as compared under -i, -b, -w and
// --strip-trailing-cr (the newline is kept: a last line without one
// differs from the same line with one, as in GNU diff).
func (d *differ) normalize(l string) string {
	body, nl := strings.CutSuffix(l, "\n")
	if d.stripCR {
		body = strings.TrimSuffix(body, "\r")
	}
	if d.ignoreCase {
		body = strings.ToLower(body)
	}
	switch {
	case d.ignoreAllSpace:
		body = strings.Join(strings.Fields(body), "")
	case d.ignoreSpace:
		// Runs of blanks count as one; trailing blanks not at all.
		var b strings.Builder
		blank := false
		for _, r := range body {
			if r == ' ' || r == '\t' {
				blank = true
				continue
			}
			if blank {
				b.WriteByte(' ')
				blank = false
			}
			b.WriteRune(r)
		}
		body = b.String()
	}
	if nl {
		return body + "\n"
	}
	return body
}

func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 32<<10)], 0) >= 0
}

// splitLines splits data after each newline; the last line may lack one.
func splitLines(data []byte) []string {
	var lines []string
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, string(data))
			break
		}
		lines = append(lines, string(data[:i+1]))
		data = data[i+1:]
	}
	return lines
}

// A hunk is a change: lines [a0,a1) of the first file replaced by
// [b0,b1) of the second.
type hunk struct{ a0, a1, b0, b1 int }

func buildHunks(ca, cb []bool) []hunk {
	var hs []hunk
	i, j := 0, 0
	for i < len(ca) || j < len(cb) {
		if i < len(ca) && j < len(cb) && !ca[i] && !cb[j] {
			i++
			j++
			continue
		}
		h := hunk{a0: i, b0: j}
		for i < len(ca) && ca[i] {
			i++
		}
		for j < len(cb) && cb[j] {
			j++
		}
		h.a1, h.b1 = i, j
		if h.a0 == h.a1 && h.b0 == h.b1 {
			// Should not happen; advance to stay safe.
			i++
			j++
			continue
		}
		hs = append(hs, h)
	}
	return hs
}

func (d *differ) writeLine(prefix, line string) {
	_, _ = d.w.WriteString(prefix)
	_, _ = d.w.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		_, _ = d.w.WriteString("\n\\ No newline at end of file\n")
	}
}

// rangeStr is "a,b" or "a" for normal and context headers.
func rangeStr(a, b int) string {
	if a >= b {
		return fmt.Sprint(b)
	}
	return fmt.Sprintf("%d,%d", a, b)
}

func (d *differ) normal(la, lb []string, hunks []hunk) {
	for _, h := range hunks {
		switch {
		case h.a0 == h.a1:
			fmt.Fprintf(d.w, "%da%s\n", h.a0, rangeStr(h.b0+1, h.b1))
		case h.b0 == h.b1:
			fmt.Fprintf(d.w, "%sd%d\n", rangeStr(h.a0+1, h.a1), h.b0)
		default:
			fmt.Fprintf(d.w, "%sc%s\n", rangeStr(h.a0+1, h.a1), rangeStr(h.b0+1, h.b1))
		}
		for _, l := range la[h.a0:h.a1] {
			d.writeLine("< ", l)
		}
		if h.a0 != h.a1 && h.b0 != h.b1 {
			_, _ = d.w.WriteString("---\n")
		}
		for _, l := range lb[h.b0:h.b1] {
			d.writeLine("> ", l)
		}
	}
}

// groups merges hunks whose context would touch or overlap.
func (d *differ) groups(hunks []hunk) [][]hunk {
	var gs [][]hunk
	for _, h := range hunks {
		if n := len(gs); n > 0 {
			last := gs[n-1][len(gs[n-1])-1]
			if h.a0-last.a1 <= 2*d.context {
				gs[n-1] = append(gs[n-1], h)
				continue
			}
		}
		gs = append(gs, []hunk{h})
	}
	return gs
}

func (d *differ) unified(la, lb []string, hunks []hunk) {
	for _, g := range d.groups(hunks) {
		first, last := g[0], g[len(g)-1]
		a0 := max(0, first.a0-d.context)
		b0 := max(0, first.b0-d.context)
		a1 := min(len(la), last.a1+d.context)
		b1 := min(len(lb), last.b1+d.context)
		fmt.Fprintf(d.w, "@@ -%s +%s @@\n", unifiedRange(a0, a1), unifiedRange(b0, b1))
		i := a0
		for _, h := range g {
			for ; i < h.a0; i++ {
				d.writeLine(" ", la[i])
			}
			for _, l := range la[h.a0:h.a1] {
				d.writeLine("-", l)
			}
			for _, l := range lb[h.b0:h.b1] {
				d.writeLine("+", l)
			}
			i = h.a1
		}
		for ; i < a1; i++ {
			d.writeLine(" ", la[i])
		}
	}
}

// unifiedRange is "start,count" with GNU's conventions: a count of one
// is omitted and an empty range starts at the line before it.
func unifiedRange(a0, a1 int) string {
	switch n := a1 - a0; n {
	case 0:
		return fmt.Sprintf("%d,0", a0)
	case 1:
		return fmt.Sprint(a0 + 1)
	default:
		return fmt.Sprintf("%d,%d", a0+1, n)
	}
}

func (d *differ) contextDiff(la, lb []string, hunks []hunk) {
	for _, g := range d.groups(hunks) {
		first, last := g[0], g[len(g)-1]
		a0 := max(0, first.a0-d.context)
		b0 := max(0, first.b0-d.context)
		a1 := min(len(la), last.a1+d.context)
		b1 := min(len(lb), last.b1+d.context)
		_, _ = d.w.WriteString("***************\n")
		fmt.Fprintf(d.w, "*** %s ****\n", contextRange(a0, a1))
		side := func(lines []string, lo, hi int, start, end func(hunk) int, other func(hunk) bool, mark string) {
			hasChange := false
			for _, h := range g {
				if start(h) != end(h) {
					hasChange = true
				}
			}
			if !hasChange {
				return
			}
			i := lo
			for _, h := range g {
				for ; i < start(h); i++ {
					d.writeLine("  ", lines[i])
				}
				prefix := mark
				if other(h) {
					prefix = "! "
				}
				for ; i < end(h); i++ {
					d.writeLine(prefix, lines[i])
				}
			}
			for ; i < hi; i++ {
				d.writeLine("  ", lines[i])
			}
		}
		side(la, a0, a1, func(h hunk) int { return h.a0 }, func(h hunk) int { return h.a1 }, func(h hunk) bool { return h.b0 != h.b1 }, "- ")
		fmt.Fprintf(d.w, "--- %s ----\n", contextRange(b0, b1))
		side(lb, b0, b1, func(h hunk) int { return h.b0 }, func(h hunk) int { return h.b1 }, func(h hunk) bool { return h.a0 != h.a1 }, "+ ")
	}
}

func contextRange(a0, a1 int) string {
	switch {
	case a1 == a0:
		return fmt.Sprint(a0)
	case a1-a0 == 1:
		return fmt.Sprint(a1)
	}
	return fmt.Sprintf("%d,%d", a0+1, a1)
}

// diffDirs compares two directories entry by entry, as GNU diff does.
func (d *differ) diffDirs(a, b string) {
	d.inDirs = true
	ea, _ := os.ReadDir(d.e.Path(a))
	eb, _ := os.ReadDir(d.e.Path(b))
	names := map[string]int{}
	for _, x := range ea {
		names[x.Name()] |= 1
	}
	for _, x := range eb {
		names[x.Name()] |= 2
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sortStrings(sorted)
	for _, n := range sorted {
		pa, pb := joinPath(a, n), joinPath(b, n)
		where := names[n]
		if where != 3 && !d.newFile {
			dir := a
			if where == 2 {
				dir = b
			}
			fmt.Fprintf(d.w, "Only in %s: %s\n", dir, n)
			d.setStatus(1)
			continue
		}
		fa, erra := os.Stat(d.e.Path(pa))
		fb, errb := os.Stat(d.e.Path(pb))
		switch {
		case erra == nil && errb == nil && fa.IsDir() && fb.IsDir():
			if d.recursive {
				d.diffDirs(pa, pb)
			} else {
				fmt.Fprintf(d.w, "Common subdirectories: %s and %s\n", pa, pb)
			}
		case erra == nil && errb == nil && fa.IsDir() != fb.IsDir():
			kind := func(fi fs.FileInfo) string {
				if fi.IsDir() {
					return "directory"
				}
				return fileType(fi)
			}
			fmt.Fprintf(d.w, "File %s is a %s while file %s is a %s\n", pa, kind(fa), pb, kind(fb))
			d.setStatus(1)
		case (erra != nil && fb != nil && fb.IsDir()) || (errb != nil && fa != nil && fa.IsDir()):
			if d.recursive {
				d.diffDirs(pa, pb)
			}
		default:
			d.diffFiles(pa, pb)
		}
	}
}

// diffUsage reports a usage error the diffutils way: ASCII quotes and
// the program name on the hint line too.
func diffUsage(e *proc.Env, name, format string, a ...any) int {
	e.Errorf(name, format, a...)
	e.Errorf(name, "Try '%s --help' for more information.", name)
	return 2
}
