package filecmd

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// du estimates disk usage without st_blocks (see blocks1K): each file
// takes its size rounded up to 4 KiB blocks, as on ext4, and each
// directory one block of its own. For ordinary files this matches GNU du
// on ext4; sparse files, inline data and large directories differ.
type duer struct {
	e                        *proc.Env
	w                        *bufio.Writer
	all, summarize, apparent bool
	human, si                bool
	unit                     int64
	maxDepth                 int
	seen                     []fs.FileInfo
	status                   int
}

func du(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "du", 1, proc.Getopt{Spec: "0,null a,all ,apparent-size B,block-size: b,bytes c,total D,dereference-args d,max-depth: H h,human-readable ,inodes k L,dereference l,count-links m P,no-dereference S,separate-dirs ,si s,summarize t,threshold: ,time:: ,time-style: X,exclude-from: ,exclude: x,one-file-system"}, args[1:])
	if !ok {
		return st
	}
	d := &duer{e: e, unit: 1024, maxDepth: -1}
	total := false
	for _, o := range opts {
		switch o.Key {
		case "a":
			d.all = true
		case "apparent-size":
			d.apparent = true
		case "b":
			d.apparent, d.unit = true, 1
		case "B":
			n, ok := parseSize(o.Val)
			if !ok || n <= 0 {
				e.Errorf("du", "invalid -B argument %s", q(o.Val))
				return 1
			}
			d.unit = n
		case "c":
			total = true
		case "d":
			n, err := strconv.Atoi(o.Val)
			if err != nil || n < 0 {
				e.Errorf("du", "invalid maximum depth %s", q(o.Val))
				return 1
			}
			d.maxDepth = n
		case "h":
			d.human = true
		case "si":
			d.human, d.si = true, true
		case "k":
			d.unit = 1024
		case "m":
			d.unit = 1 << 20
		case "s":
			d.summarize = true
		}
	}
	if d.summarize {
		if d.maxDepth > 0 {
			e.Errorf("du", "warning: summarizing conflicts with --max-depth=%d", d.maxDepth)
			e.TryHelp("du")
			return 1
		}
		d.maxDepth = 0
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	d.w = bufio.NewWriter(e.Stdout)
	defer func() { _ = d.w.Flush() }()
	var sum int64
	for _, name := range ops {
		sum += d.walk(name, e.Path(name), 0)
	}
	if total {
		d.print(sum, "total")
	}
	return d.status
}

// size is what one file contributes, in bytes.
func (d *duer) size(fi fs.FileInfo) int64 {
	if d.apparent {
		if fi.Mode()&fs.ModeSymlink != 0 || fi.IsDir() || fi.Mode().IsRegular() {
			return fi.Size()
		}
		return 0
	}
	return blocks1K(fi) * 1024
}

func (d *duer) print(bytes int64, name string) {
	var s string
	switch {
	case d.human && d.si:
		s = humanSize(bytes, 1000)
	case d.human:
		s = humanSize(bytes, 1024)
	default:
		s = strconv.FormatInt((bytes+d.unit-1)/d.unit, 10)
	}
	fmt.Fprintf(d.w, "%s\t%s\n", s, name)
}

// walk returns the usage of name in bytes, printing directories (and
// with -a files) no deeper than the maximum depth.
func (d *duer) walk(name, p string, depth int) int64 {
	if d.e.Cancelled() {
		return 0
	}
	fi, err := os.Lstat(p)
	if err != nil {
		_ = d.w.Flush()
		d.e.Errorf("du", "cannot access %s: %s", qa(name), proc.ErrorText(err))
		d.status = 1
		return 0
	}
	if fi.IsDir() {
		// A directory reached twice (du d d/s) is counted once.
		for _, s := range d.seen {
			if os.SameFile(s, fi) {
				return 0
			}
		}
		d.seen = append(d.seen, fi)
	}
	size := d.size(fi)
	if fi.IsDir() {
		entries, err := os.ReadDir(p)
		if err != nil {
			_ = d.w.Flush()
			d.e.Errorf("du", "cannot read directory %s: %s", qa(name), proc.ErrorText(err))
			d.status = 1
		}
		for _, de := range entries {
			size += d.walk(joinPath(name, de.Name()), path.Join(p, de.Name()), depth+1)
		}
	}
	if (fi.IsDir() || d.all || depth == 0) && (d.maxDepth < 0 || depth <= d.maxDepth) {
		d.print(size, name)
	}
	return size
}

// parseSize parses a size with an optional K, M, G, T (powers of 1024,
// also KiB...) or KB, MB... (powers of 1000) suffix, as GNU's -B, -s and
// truncate -s accept.
func parseSize(s string) (int64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	num, suf := s[:i], s[i:]
	n := int64(1)
	if num != "" {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, false
		}
		n = v
	} else if suf == "" {
		return 0, false
	}
	if suf == "" {
		return n, true
	}
	base := int64(1024)
	switch {
	case len(suf) == 2 && suf[1] == 'B':
		base = 1000
	case len(suf) == 3 && suf[1:] == "iB":
	case len(suf) == 1:
	default:
		return 0, false
	}
	pow := map[byte]int{'K': 1, 'k': 1, 'M': 2, 'G': 3, 'T': 4, 'P': 5, 'E': 6}[suf[0]]
	if pow == 0 {
		if suf == "b" {
			return n * 512, true
		}
		return 0, false
	}
	for range pow {
		n *= base
	}
	return n, true
}
