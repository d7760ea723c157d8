package textcmd

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// columnOpts are util-linux 2.38 column's options.
const columnOpts = "c,columns,output-width: d,table-noheadings E,table-noextreme: e,table-header-repeat " +
	"H,table-hide: h,help i,tree-id: J,json l,table-columns-limit: L,keep-empty-lines,table-empty-lines " +
	"N,table-columns: n,table-name: O,table-order: o,output-separator: p,tree-parent: R,table-right: " +
	"r,tree: s,separator: T,table-truncate: t,table V,version W,table-wrap: x,fillrows"

// columnTabStop is the width of a tab stop in fill mode.
const columnTabStop = 8

type columnTable struct {
	rows  [][]string
	names []string
	// sep are the input separators; greedy (the default blanks) merges
	// runs of them and ignores them at either end of a line, as wcstok
	// does. -s makes every separator end a cell, so empty cells count.
	sep    string
	greedy bool
	limit  int // -l: the last column takes the rest of the line
}

// column is util-linux 2.38's column (Debian 12), not a coreutils tool:
// scripts pipe tables through "column -t", so its spacing, its silence
// about trailing blanks and its exit statuses are what they expect.
//
// Table mode (-t) lays cells out as libsmartcols does for column: every
// column as wide as its widest cell, cells padded and followed by the
// output separator, except the last visible column, which is printed
// bare unless right-aligned. libsmartcols never truncates or wraps a
// table unless asked to (-T, -W), so a wide table simply overflows the
// output width. Without -t, entries are filled into columns of tab
// stops as BSD column did.
//
// The tree (-r) and JSON (-J) outputs are not implemented, nor is
// fitting a table into the width as -E, -T and -W ask when it is
// wider: those fail clearly rather than print what column would not.
func column(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: columnOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("column", 1, "%v", err)
	}
	fail := func(format string, a ...any) int {
		e.Errorf("column", format, a...)
		return 1
	}
	table, fillRows, keepEmpty, noHeadings, haveWidth := false, false, false, false, false
	var width uint64
	tab := &columnTable{sep: "\t ", greedy: true}
	outSep := "  "
	var right, hide, order, trunc, wrap, noExtreme string
	var haveTableOnly bool
	for _, o := range opts {
		switch o.Key {
		case "c":
			n, errText, ok := columnNumber(o.Val)
			if !ok {
				return fail("invalid columns argument: '%s'%s", o.Val, errText)
			}
			width, haveWidth = n, true
		case "d":
			noHeadings = true
		case "E":
			noExtreme, haveTableOnly = o.Val, true
		case "e":
			// Headers repeat per page of a terminal; there is none.
		case "H":
			hide, haveTableOnly = o.Val, true
		case "h":
			fmt.Fprint(e.Stdout, "\nUsage:\n column [options] [<file>...]\n\nColumnate lists.\n\nThis is skillrun's sandboxed column; see column(1) from util-linux for its options.\n")
			return 0
		case "V":
			fmt.Fprintln(e.Stdout, "column from util-linux 2.38.1")
			return 0
		case "i", "p":
			// Only a tree (-r) uses them.
		case "r":
			return fail("option -r (tree output) is not supported in the sandbox")
		case "J":
			return fail("option -J (JSON output) is not supported in the sandbox")
		case "l":
			n, errText, ok := columnNumber(o.Val)
			if !ok {
				return fail("invalid columns limit argument: '%s'%s", o.Val, errText)
			}
			if n == 0 {
				return fail("columns limit must be greater than zero")
			}
			tab.limit = int(min(n, 1<<31))
		case "L":
			keepEmpty = true
		case "N":
			tab.names = columnList(o.Val)
			haveTableOnly = true
		case "n":
			haveTableOnly = true // it only names a JSON table
		case "O":
			order, haveTableOnly = o.Val, true
		case "o":
			outSep = o.Val
		case "R":
			right, haveTableOnly = o.Val, true
		case "s":
			tab.sep, tab.greedy = o.Val, false
		case "T":
			trunc, haveTableOnly = o.Val, true
		case "W":
			wrap, haveTableOnly = o.Val, true
		case "t":
			table = true
			if fillRows {
				return fail("mutually exclusive arguments: --table --fillrows")
			}
		case "x":
			fillRows = true
			if table {
				return fail("mutually exclusive arguments: --table --fillrows")
			}
		}
	}
	if !haveWidth {
		width = 80
		if n, err := strconv.ParseInt(strings.TrimLeft(e.Getenv("COLUMNS"), " \t\n\v\f\r"), 10, 32); err == nil && n > 0 {
			width = uint64(n)
		}
	}
	if !table && haveTableOnly {
		return fail("option --table required for all --table-*")
	}

	// Read everything first: a table's widths depend on all its rows.
	// A file that cannot be opened is reported and skipped; one that
	// cannot be read ends column at once, as util-linux's err() does.
	failures := 0
	var entries []string
	maxLen := 0
	add := func(line []byte) {
		if i := strings.IndexByte(string(line), 0); i >= 0 {
			line = line[:i] // mbstowcs stops at a NUL
		}
		if strings.Trim(string(line), " \t\n\v\f\r") == "" {
			if !keepEmpty {
				return
			}
			if table {
				tab.rows = append(tab.rows, nil)
			} else {
				entries = append(entries, "")
			}
			return
		}
		text := columnText(line)
		if table {
			tab.addLine(text)
			return
		}
		entries = append(entries, text)
		maxLen = max(maxLen, columnWidth(text))
	}
	readFrom := func(lr *lineReader) bool {
		for lr.next() && !e.Cancelled() {
			add(lr.line)
		}
		if lr.err != nil {
			e.Errorf("column", "read failed: %s", proc.ErrorText(lr.err))
			return false
		}
		return true
	}
	if len(operands) == 0 {
		if !readFrom(newLineReader(e.Stdin, '\n')) {
			return 1
		}
	}
	for _, name := range operands {
		// column reads "-" as a file name, not as standard input.
		f, err := os.Open(e.Path(name))
		if err != nil {
			e.Errorf("column", "%s: %s", name, proc.ErrorText(err))
			failures++
			continue
		}
		ok := readFrom(newLineReader(f, '\n'))
		f.Close()
		if !ok {
			return 1
		}
	}

	out := newOutput(e.Stdout)
	if table {
		if len(tab.rows) == 0 {
			return min(failures, 1)
		}
		cols, err := tab.layout(right, hide, order)
		if err != "" {
			return fail("%s", err)
		}
		if tab.ncols() == 0 {
			// Only empty lines (-L): libsmartcols fails to print a
			// table without columns.
			return 1
		}
		if trunc != "" || wrap != "" || noExtreme != "" {
			if _, err := tab.lookup(trunc+","+wrap+","+noExtreme, tab.ncols()); err != "" {
				return fail("%s", err)
			}
			// Within the width, libsmartcols changes nothing for them.
			if tab.totalWidth(cols, outSep) > width {
				return fail("fitting a table wider than %d columns (-E, -T, -W) is not supported in the sandbox", width)
			}
		}
		tab.print(out, cols, outSep, noHeadings)
		// column's status is the printing's: files it could not open
		// no longer count once a table was printed.
		if out.flush() != nil {
			return 1
		}
		return 0
	}
	if len(entries) == 0 {
		return min(failures, 255)
	}
	switch {
	case uint64(maxLen) >= width:
		for _, s := range entries {
			_, _ = out.WriteString(s)
			_ = out.WriteByte('\n')
		}
	case fillRows:
		columnFillRows(out, entries, maxLen, width)
	default:
		columnFillCols(out, entries, maxLen, width)
	}
	if out.flush() != nil || failures > 0 {
		return 1
	}
	return 0
}

// columnNumber parses a number as util-linux's strtou32_or_err does.
// On failure it returns the end of column's message: ": Numerical
// result out of range" for a negative or too large value, nothing for
// one that is not a number.
func columnNumber(s string) (n uint64, errText string, ok bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || strings.Trim(t, "0123456789") != "" {
		return 0, "", false
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n > 1<<32-1 || neg && n != 0 {
		return 0, ": Numerical result out of range", false
	}
	return n, "", true
}

// columnList splits a comma-separated list, dropping empty items as
// util-linux's strv_split does.
func columnList(s string) []string {
	var list []string
	for _, item := range strings.Split(s, ",") {
		if item != "" {
			list = append(list, item)
		}
	}
	return list
}

// columnText is a line as column keeps it: bytes that are not UTF-8
// become \xHH, as util-linux's mbs_invalid_encode writes them.
func columnText(line []byte) string {
	if utf8.Valid(line) {
		return string(line)
	}
	var b strings.Builder
	for len(line) > 0 {
		r, size := utf8.DecodeRune(line)
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, line[0])
		} else {
			b.Write(line[:size])
		}
		line = line[size:]
	}
	return b.String()
}

// columnWidth is the display width of s as util-linux counts it: the sum
// of glibc's wcwidth over its characters, where control and other
// unprintable characters count nothing.
func columnWidth(s string) int {
	w := 0
	for _, r := range s {
		w += columnRuneWidth(r)
	}
	return w
}

// cellWidth is the width libsmartcols gives a table cell: columnWidth,
// except that colour sequences (ESC [ ... m) take no room.
func cellWidth(s string) int {
	w := 0
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return w + columnWidth(s)
		}
		w += columnWidth(s[:i])
		m := strings.IndexByte(s[i:], 'm')
		if m < 0 {
			return w + columnWidth(s[i:])
		}
		s = s[i+m+1:]
	}
}

// columnRuneWidth is glibc 2.36's wcwidth in C.UTF-8 (Unicode 14), with
// -1 (not printable) counted as 0.
func columnRuneWidth(r rune) int {
	switch {
	case r == 0xad, r >= 0x600 && r <= 0x605, r == 0x6dd, r == 0x70f, r == 0x890, r == 0x891,
		r == 0x8e2, r == 0x110bd, r == 0x110cd:
		return 1 // format characters glibc shows: the soft hyphen, prepended marks
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf),
		r >= 0x1160 && r <= 0x11ff, r >= 0xd7b0 && r <= 0xd7ff:
		return 0 // combining marks, format characters, Hangul vowels and finals
	case unicode.Is(unicode.Co, r):
		return 1
	case !unicode.IsGraphic(r):
		return 0
	}
	i := sort.Search(len(columnWide), func(i int) bool { return columnWide[i][1] >= r })
	if i < len(columnWide) && columnWide[i][0] <= r {
		return 2
	}
	return 1
}

// columnWide are the characters glibc gives width 2: East Asian wide and
// full-width ones and emoji. Ranges span unassigned code points, which
// columnRuneWidth has already counted as 0.
var columnWide = [][2]rune{
	{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec},
	{0x23f0, 0x23f0}, {0x23f3, 0x23f3}, {0x25fd, 0x25fe}, {0x2614, 0x2615},
	{0x2648, 0x2653}, {0x267f, 0x267f}, {0x2693, 0x2693}, {0x26a1, 0x26a1},
	{0x26aa, 0x26ab}, {0x26bd, 0x26be}, {0x26c4, 0x26c5}, {0x26ce, 0x26ce},
	{0x26d4, 0x26d4}, {0x26ea, 0x26ea}, {0x26f2, 0x26f3}, {0x26f5, 0x26f5},
	{0x26fa, 0x26fa}, {0x26fd, 0x26fd}, {0x2705, 0x2705}, {0x270a, 0x270b},
	{0x2728, 0x2728}, {0x274c, 0x274c}, {0x274e, 0x274e}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2795, 0x2797}, {0x27b0, 0x27b0}, {0x27bf, 0x27bf},
	{0x2b1b, 0x2b1c}, {0x2b50, 0x2b50}, {0x2b55, 0x2b55}, {0x2e80, 0x303e},
	{0x3041, 0xa4c6}, {0xa960, 0xa97c}, {0xac00, 0xd7a3}, {0xf900, 0xfad9},
	{0xfe10, 0xfe6b}, {0xff01, 0xff60}, {0xffe0, 0xffe6}, {0x16fe0, 0x1b2fb},
	{0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e}, {0x1f191, 0x1f19a},
	{0x1f200, 0x1f320}, {0x1f32d, 0x1f335}, {0x1f337, 0x1f37c}, {0x1f37e, 0x1f393},
	{0x1f3a0, 0x1f3ca}, {0x1f3cf, 0x1f3d3}, {0x1f3e0, 0x1f3f0}, {0x1f3f4, 0x1f3f4},
	{0x1f3f8, 0x1f43e}, {0x1f440, 0x1f440}, {0x1f442, 0x1f4fc}, {0x1f4ff, 0x1f53d},
	{0x1f54b, 0x1f54e}, {0x1f550, 0x1f567}, {0x1f57a, 0x1f57a}, {0x1f595, 0x1f596},
	{0x1f5a4, 0x1f5a4}, {0x1f5fb, 0x1f64f}, {0x1f680, 0x1f6c5}, {0x1f6cc, 0x1f6cc},
	{0x1f6d0, 0x1f6d2}, {0x1f6d5, 0x1f6df}, {0x1f6eb, 0x1f6ec}, {0x1f6f4, 0x1f6fc},
	{0x1f7e0, 0x1f7f0}, {0x1f90c, 0x1f93a}, {0x1f93c, 0x1f945}, {0x1f947, 0x1f9ff},
	{0x1fa70, 0x1faf6}, {0x20000, 0x3134a},
}

// addLine splits one line into the table's cells.
func (t *columnTable) addLine(line string) {
	r := []rune(line)
	isSep := func(c rune) bool { return strings.ContainsRune(t.sep, c) }
	var row []string
	var ends []int // where each cell ended: wcstok wrote a NUL there
	for pos := 0; ; {
		if t.limit > 0 && len(row) == t.limit-1 {
			if rest, ok := columnRest(r, row, ends); ok {
				row = append(row, rest)
			}
			break
		}
		start := pos
		if t.greedy {
			for start < len(r) && isSep(r[start]) {
				start++
			}
			if start == len(r) {
				break
			}
		}
		end := start
		for end < len(r) && !isSep(r[end]) {
			end++
		}
		row = append(row, string(r[start:end]))
		ends = append(ends, end)
		if end == len(r) && !(t.limit > 0 && len(row) == t.limit-1) {
			break
		}
		pos = end + 1
	}
	t.rows = append(t.rows, row)
}

// columnRest is the last cell of a line cut by -l N, as Debian's column
// 2.38 computes it once N-1 cells were read, whether or not more
// follow: it starts just after the first cell's separator plus the
// length of each further cell and one separator, and runs to the end or
// to the next place a cell ended. With single separators that is the
// rest of the line; where blanks run together it lands elsewhere, and
// column prints a shorter, empty or repeated last cell. There is none
// when that start is past the line.
func columnRest(r []rune, cells []string, ends []int) (string, bool) {
	if len(cells) == 0 {
		return string(r), true // -l 1: the whole line, leading blanks too
	}
	at := ends[0] + 1
	for _, c := range cells[1:] {
		at += utf8.RuneCountInString(c) + 1
	}
	if at >= len(r) {
		return "", false
	}
	stop := len(r)
	for _, e := range ends {
		if e >= at && e < stop {
			stop = e
		}
	}
	return string(r[at:stop]), true
}

// A columnCol is one output column: its index in the rows, width and
// alignment.
type columnCol struct {
	index int
	width int
	right bool
}

// lookup finds the columns a list names, by number (1 is the first) or
// by -N name, as column's string_to_column does. Numbers past the last
// column are ignored; unknown names are an error.
func (t *columnTable) lookup(list string, ncols int) ([]int, string) {
	var found []int
	for _, item := range columnList(list) {
		if strings.Trim(item, "0123456789") == "" {
			n, err := strconv.ParseUint(item, 10, 32)
			if err != nil {
				return nil, fmt.Sprintf("failed to parse column: '%s'", item)
			}
			if n >= 1 && int(n) <= ncols {
				found = append(found, int(n)-1)
			}
			continue
		}
		i := -1
		for j, name := range t.names {
			if strings.EqualFold(name, item) {
				i = j
				break
			}
		}
		if i < 0 {
			return nil, fmt.Sprintf("undefined column name '%s'", item)
		}
		found = append(found, i)
	}
	return found, ""
}

// ncols is the number of columns: the most cells in a row, or the
// number of -N names if more.
func (t *columnTable) ncols() int {
	n := len(t.names)
	for _, row := range t.rows {
		n = max(n, len(row))
	}
	return n
}

// layout decides the visible columns in output order with their widths.
func (t *columnTable) layout(right, hide, order string) ([]columnCol, string) {
	ncols := t.ncols()
	rightCols, err := t.lookup(right, ncols)
	if err != "" {
		return nil, err
	}
	hideCols, err := t.lookup(hide, ncols)
	if err != "" {
		return nil, err
	}
	orderCols, err := t.lookup(order, ncols)
	if err != "" {
		return nil, err
	}
	// -O moves the named columns to the front, in its order.
	var seq []int
	used := make([]bool, ncols)
	for _, i := range orderCols {
		if !used[i] {
			seq = append(seq, i)
			used[i] = true
		}
	}
	for i := 0; i < ncols; i++ {
		if !used[i] {
			seq = append(seq, i)
		}
	}
	hidden := make([]bool, ncols)
	for _, i := range hideCols {
		hidden[i] = true
	}
	isRight := make([]bool, ncols)
	for _, i := range rightCols {
		isRight[i] = true
	}
	var cols []columnCol
	for _, i := range seq {
		if hidden[i] {
			continue
		}
		c := columnCol{index: i, right: isRight[i]}
		if i < len(t.names) {
			// Names count even when -d hides them.
			c.width = cellWidth(t.names[i])
		}
		for _, row := range t.rows {
			if i < len(row) {
				c.width = max(c.width, cellWidth(row[i]))
			}
		}
		cols = append(cols, c)
	}
	return cols, ""
}

// totalWidth is the width of the table's widest possible line.
func (t *columnTable) totalWidth(cols []columnCol, sep string) uint64 {
	var w uint64
	for i, c := range cols {
		w += uint64(c.width)
		if i > 0 {
			w += uint64(cellWidth(sep))
		}
	}
	return w
}

func (t *columnTable) print(out *output, cols []columnCol, sep string, noHeadings bool) {
	line := func(cells []string) {
		for n, c := range cols {
			cell := ""
			if c.index < len(cells) {
				cell = cells[c.index]
			}
			last := n == len(cols)-1
			pad := strings.Repeat(" ", max(0, c.width-cellWidth(cell)))
			switch {
			case last && cell == "":
				// An empty last cell is not padded, even right-aligned.
			case c.right:
				_, _ = out.WriteString(pad)
				_, _ = out.WriteString(cell)
			case last:
				_, _ = out.WriteString(cell)
			default:
				_, _ = out.WriteString(cell)
				_, _ = out.WriteString(pad)
			}
			if !last {
				_, _ = out.WriteString(sep)
			}
		}
		_ = out.WriteByte('\n')
	}
	if len(t.names) > 0 && !noHeadings {
		line(t.names)
	}
	for _, row := range t.rows {
		if out.failed() {
			return
		}
		line(row)
	}
}

// columnTabs pads with tabs from display column at to the tab stop
// before or at end, as column's fill modes do, and returns the column
// reached.
func columnTabs(out *output, at, end int) int {
	for {
		next := (at + columnTabStop) &^ (columnTabStop - 1)
		if next > end {
			return at
		}
		_ = out.WriteByte('\t')
		at = next
	}
}

// columnFillCols fills columns first: entries run down each column.
func columnFillCols(out *output, entries []string, maxLen int, width uint64) {
	colWidth := (maxLen + columnTabStop) &^ (columnTabStop - 1)
	numCols := int(min(width/uint64(colWidth), uint64(len(entries))))
	numCols = max(numCols, 1) // at least one column, however narrow
	numRows := (len(entries) + numCols - 1) / numCols
	for row := 0; row < numRows && !out.failed(); row++ {
		end, at := colWidth, 0
		for base := row; ; {
			_, _ = out.WriteString(entries[base])
			at += columnWidth(entries[base])
			if base += numRows; base >= len(entries) {
				break
			}
			at = columnTabs(out, at, end)
			end += colWidth
		}
		_ = out.WriteByte('\n')
	}
}

// columnFillRows fills rows first (-x): entries run across each row.
func columnFillRows(out *output, entries []string, maxLen int, width uint64) {
	colWidth := (maxLen + columnTabStop) &^ (columnTabStop - 1)
	// With no column fitting (an entry narrower than the width but
	// wider once rounded to a tab stop) column puts every entry on one
	// line; numCols 0 does the same here.
	numCols := int(min(width/uint64(colWidth), uint64(len(entries))))
	end, at, col := colWidth, 0, 0
	for i, s := range entries {
		_, _ = out.WriteString(s)
		at += columnWidth(s)
		if i == len(entries)-1 {
			break
		}
		if col++; col == numCols {
			_ = out.WriteByte('\n')
			at, col, end = 0, 0, colWidth
			continue
		}
		at = columnTabs(out, at, end)
		end += colWidth
	}
	if at > 0 {
		_ = out.WriteByte('\n')
	}
}
