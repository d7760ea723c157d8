package textcmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

const wcOpts = "c,bytes m,chars l,lines w,words L,max-line-length"

// wcCounts are the counts of one input.
type wcCounts struct {
	lines, words, chars, bytes, maxLen int64
}

func wc(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: wcOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("wc", 1, "%v", err)
	}
	var show struct{ lines, words, chars, bytes, maxLen bool }
	for _, o := range opts {
		switch o.Key {
		case "c":
			show.bytes = true
		case "m":
			show.chars = true
		case "l":
			show.lines = true
		case "w":
			show.words = true
		case "L":
			show.maxLen = true
		}
	}
	if !show.lines && !show.words && !show.chars && !show.bytes && !show.maxLen {
		show.lines, show.words, show.bytes = true, true, true
	}
	nshow := 0
	for _, b := range []bool{show.lines, show.words, show.chars, show.bytes, show.maxLen} {
		if b {
			nshow++
		}
	}
	names := operands
	if len(names) == 0 {
		names = []string{""}
	}
	width := wcWidth(e, names, nshow)
	out := newOutput(e.Stdout)
	print := func(c wcCounts, name string) {
		var fields []string
		add := func(on bool, n int64) {
			if on {
				fields = append(fields, fmt.Sprintf("%*d", width, n))
			}
		}
		add(show.lines, c.lines)
		add(show.words, c.words)
		add(show.chars, c.chars)
		add(show.bytes, c.bytes)
		add(show.maxLen, c.maxLen)
		line := strings.Join(fields, " ")
		if name != "" {
			line += " " + name
		}
		_, _ = out.WriteString(line + "\n")
	}
	status := 0
	var total wcCounts
	for _, name := range names {
		if e.Cancelled() {
			break
		}
		var r io.Reader = e.Stdin
		var file *os.File
		if name != "" && name != "-" {
			f, err := os.Open(e.Path(name))
			if err != nil {
				_ = out.flush()
				fmt.Fprintf(e.Stderr, "wc: %s: %s\n", quoteName(name), proc.ErrorText(err))
				status = 1
				continue
			}
			r, file = f, f
		}
		c, err := wcCount(r, show.words || show.chars || show.maxLen)
		if file != nil {
			file.Close()
		}
		if err != nil {
			_ = out.flush()
			fmt.Fprintf(e.Stderr, "wc: %s: %s\n", quoteName(name), proc.ErrorText(err))
			status = 1
		}
		print(c, name)
		total.lines += c.lines
		total.words += c.words
		total.chars += c.chars
		total.bytes += c.bytes
		total.maxLen = max(total.maxLen, c.maxLen)
	}
	if len(names) > 1 {
		print(total, "total")
	}
	if out.flush() != nil {
		status = 1
	}
	return status
}

// wcWidth is the width of each count, as coreutils 9.1 computes it
// before reading: the digits of the regular files' total size, at least
// 7 if any input is not a regular file (a pipe); 1 when only one count
// of one input is printed, or the first input cannot be examined.
func wcWidth(e *proc.Env, names []string, nshow int) int {
	if len(names) == 1 && nshow == 1 {
		return 1
	}
	minWidth := 1
	var total int64
	for _, name := range names {
		var info fs.FileInfo
		var err error
		if name == "" || name == "-" {
			st, ok := e.Stdin.(interface{ Stat() (fs.FileInfo, error) })
			if ok {
				info, err = st.Stat()
			} else {
				err = fs.ErrInvalid
				minWidth = 7
			}
		} else {
			info, err = os.Stat(e.Path(name))
		}
		if err != nil {
			continue
		}
		if info.Mode().IsRegular() {
			total += info.Size()
		} else {
			minWidth = 7
		}
	}
	w := len(strconv.FormatInt(total, 10))
	return max(w, minWidth)
}

// wcCount counts one input. Words are runs of printable characters
// between white space, as GNU wc 9.1 counts them in a UTF-8 locale:
// bytes that are not valid UTF-8 and non-printable characters neither
// start nor end a word, and are not counted by -m.
func wcCount(r io.Reader, decode bool) (wcCounts, error) {
	var c wcCounts
	br := bufio.NewReaderSize(r, 64*1024)
	if !decode {
		buf := make([]byte, 64*1024)
		for {
			n, err := br.Read(buf)
			c.bytes += int64(n)
			for _, b := range buf[:n] {
				if b == '\n' {
					c.lines++
				}
			}
			if errors.Is(err, io.EOF) {
				return c, nil
			}
			if err != nil {
				return c, err
			}
		}
	}
	inWord := false
	var col int64
	for {
		ch, size, err := br.ReadRune()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c, err
		}
		c.bytes += int64(size)
		if ch == utf8.RuneError && size == 1 {
			continue
		}
		c.chars++
		switch {
		case ch == '\n':
			c.lines++
			c.maxLen = max(c.maxLen, col)
			col = 0
			inWord = false
		case ch == '\t':
			col += 8 - col%8
			inWord = false
		case ch == '\r' || ch == '\f':
			c.maxLen = max(c.maxLen, col)
			col = 0
			inWord = false
		case isWSpace(ch):
			col++
			inWord = false
		case unicode.IsGraphic(ch):
			col += int64(runeWidth(ch))
			if !inWord {
				c.words++
				inWord = true
			}
		}
	}
	c.maxLen = max(c.maxLen, col)
	return c, nil
}

// isWSpace is glibc's iswspace: Go's unicode.IsSpace also counts
// no-break spaces, which glibc does not.
func isWSpace(r rune) bool {
	switch {
	case r == ' ' || r >= '\t' && r <= '\r':
		return true
	case r == 0x1680 || r >= 0x2000 && r <= 0x2006 || r >= 0x2008 && r <= 0x200a:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0x205f || r == 0x3000:
		return true
	}
	return false
}

// runeWidth is the terminal width of r: 0 for combining marks, 2 for
// East Asian wide characters, else 1.
func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
