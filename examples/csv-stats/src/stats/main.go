// Command stats summarises a CSV file: its row count and, for each numeric
// column, the minimum, maximum, mean and standard deviation.
//
// Usage:
//
//	stats FILE
//
// It is the csv-stats skill's script. Built for GOOS=wasip1 it runs in
// skillrun's sandbox, where the workspace is mounted at /workspace and
// nothing else is visible: FILE is relative to the workspace (an absolute
// /workspace/... path also works). Built natively, FILE is an ordinary
// path.
//
// The input format is in ../../references/format.md: a header row, comma
// separated fields (RFC 4180 quoting). A column is numeric when every
// non-empty field parses as a finite number; empty fields are skipped.
// The standard deviation is the sample one (n-1), 0 for a single value.
package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

// workspace is where skillrun mounts the workspace inside the sandbox.
const workspace = "/workspace"

const usage = `usage: stats FILE

Summarise a CSV file: rows, and min/max/mean/stddev of each numeric column.
FILE is relative to the workspace (` + workspace + `).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if len(args) != 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name := resolve(args[0])
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(stderr, "stats: %s\n", describeOpenErr(name, err))
		return 1
	}
	defer f.Close()

	t, err := summarise(f)
	if err != nil {
		fmt.Fprintf(stderr, "stats: %s: %v\n", args[0], err)
		return 1
	}
	w := bufio.NewWriter(stdout)
	t.print(w, args[0])
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "stats: writing output: %v\n", err)
		return 1
	}
	return 0
}

// resolve maps FILE to a path: in the sandbox, relative paths are relative
// to the workspace; natively, FILE is used as given.
func resolve(arg string) string {
	if runtime.GOOS == "wasip1" && !path.IsAbs(arg) {
		return path.Join(workspace, arg)
	}
	return arg
}

// describeOpenErr explains a failed open. In the sandbox a missing file
// is usually a path outside the workspace, which the script cannot see.
func describeOpenErr(name string, err error) string {
	if runtime.GOOS != "wasip1" {
		return err.Error()
	}
	inWorkspace := name == workspace || strings.HasPrefix(name, workspace+"/")
	switch {
	case !inWorkspace:
		return fmt.Sprintf("%s: not visible; this script sees only the workspace, at %s (give FILE relative to it)", name, workspace)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s: no such file in the workspace (only %s is visible; give FILE relative to it)", name, workspace)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s: permission denied; the workspace must be granted for reading (--allow-read=workspace)", name)
	}
	return err.Error()
}

// A column accumulates one column's statistics in a single pass
// (Welford's algorithm, so no values are kept and large files stream).
type column struct {
	name       string
	numeric    bool // every non-empty field so far was a number
	n          int
	min, max   float64
	mean, m2   float64
	firstOther string // the first non-numeric field, for the skip reason
}

func (c *column) add(field string) {
	if !c.numeric {
		return
	}
	field = strings.TrimSpace(field)
	if field == "" {
		return
	}
	x, err := strconv.ParseFloat(field, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		c.numeric, c.firstOther = false, field
		return
	}
	c.n++
	if c.n == 1 || x < c.min {
		c.min = x
	}
	if c.n == 1 || x > c.max {
		c.max = x
	}
	d := x - c.mean
	c.mean += d / float64(c.n)
	c.m2 += d * (x - c.mean)
}

func (c *column) stddev() float64 {
	if c.n < 2 {
		return 0
	}
	return math.Sqrt(c.m2 / float64(c.n-1))
}

// A table is the summary of one CSV file.
type table struct {
	rows    int
	columns []*column
}

func summarise(r io.Reader) (*table, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 64<<10))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the file is empty; expected a header row")
	}
	if err != nil {
		return nil, err
	}
	t := &table{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF") // a BOM from spreadsheet exports
		}
		h = strings.TrimSpace(h)
		if h == "" {
			h = fmt.Sprintf("column %d", i+1)
		}
		t.columns = append(t.columns, &column{name: h, numeric: true})
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// csv.ParseError says the line and what is wrong.
			return nil, err
		}
		t.rows++
		for i, field := range rec {
			t.columns[i].add(field)
		}
	}
	return t, nil
}

func (t *table) print(w io.Writer, file string) {
	fmt.Fprintf(w, "%s: %d rows, %d columns\n", file, t.rows, len(t.columns))

	cells := [][]string{{"column", "count", "min", "max", "mean", "stddev"}}
	var skipped, empty []string
	for _, c := range t.columns {
		switch {
		case !c.numeric:
			skipped = append(skipped, fmt.Sprintf("%s (%q)", c.name, truncate(c.firstOther, 20)))
		case c.n == 0:
			empty = append(empty, c.name)
		default:
			cells = append(cells, []string{c.name, strconv.Itoa(c.n),
				formatValue(c.min), formatValue(c.max), formatStat(c.mean), formatStat(c.stddev())})
		}
	}
	if len(cells) > 1 {
		fmt.Fprintln(w)
		writeAligned(w, cells)
	} else {
		fmt.Fprintln(w, "no numeric columns")
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "\nskipped (not numeric): %s\n", strings.Join(skipped, ", "))
	}
	if len(empty) > 0 {
		fmt.Fprintf(w, "skipped (empty): %s\n", strings.Join(empty, ", "))
	}
}

// writeAligned prints cells as a table: the first column left-aligned,
// the numbers right-aligned.
func writeAligned(w io.Writer, cells [][]string) {
	widths := make([]int, len(cells[0]))
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, row := range cells {
		b.Reset()
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// formatValue prints a value from the file (min, max) in its shortest form.
func formatValue(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// formatStat prints a computed statistic with two decimals, or four
// significant digits when that would hide it.
func formatStat(x float64) string {
	if a := math.Abs(x); a == 0 || a >= 0.01 && a < 1e15 {
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}
