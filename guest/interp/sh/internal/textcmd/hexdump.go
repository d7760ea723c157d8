package textcmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// hexdumpOpts are util-linux 2.38 hexdump's options.
const hexdumpOpts = "b,one-byte-octal c,one-byte-char C,canonical d,two-bytes-decimal e,format: f,format-file: " +
	"L,color:: n,length: o,two-bytes-octal s,skip: v,no-squeezing x,two-bytes-hex h,help V,version"

// hexPr is one conversion of a hexdump format unit, with the text before
// it, or text alone (conv 0). It mirrors how hexdump splits a format
// string: "%04x " is the conversion "%04x" and the text " ".
type hexPr struct {
	pre   string
	conv  byte // 'a' offset, 'A' end offset, 'x', 'o', 'u' unsigned integers, 'c' _c, 'p' _p
	width int  // numbers are padded with zeros, _c with blanks
	size  int  // bytes the conversion reads
	bpad  bool // past the end of the input: printed as blanks of its width
}

// hexFu is a format unit: its conversions repeated reps times.
type hexFu struct {
	reps int
	prs  []hexPr
}

// hexFs is a format string, a line of output per block of input; end
// marks the one holding only the end offset (_A).
type hexFs struct {
	fus []hexFu
	end bool
}

// hexText is text alone.
func hexText(s string) hexPr { return hexPr{pre: s} }

// hexConv is a conversion with the text before it.
func hexConv(pre string, conv byte, width, size int) hexPr {
	return hexPr{pre: pre, conv: conv, width: width, size: size}
}

// hexEndFs is "%07.7_Ax\n" (width 7) or "%08.8_Ax\n" (width 8).
func hexEndFs(width int) hexFs {
	return hexFs{end: true, fus: []hexFu{{1, []hexPr{hexConv("", 'A', width, 0), hexText("\n")}}}}
}

// hexLineFs is "%07.7_ax " reps/size "UNIT " "\n", the format of -b, -c,
// -d, -o, -x and of no option.
func hexLineFs(reps int, unit hexPr) hexFs {
	return hexFs{fus: []hexFu{
		{1, []hexPr{hexConv("", 'a', 7, 0), hexText(" ")}},
		{reps, []hexPr{unit, hexText(" ")}},
		{1, []hexPr{hexText("\n")}},
	}}
}

// Values of hexdump's squeezing state (vflag): -v shows all blocks;
// otherwise the first one, then a block equal to the one before is
// counted (DUP) and a "*" marks where such a run starts (WAIT).
const (
	hexAll = iota
	hexDup
	hexFirst
	hexWait
)

// hexdump is util-linux 2.38's hexdump (Debian 12), not a GNU tool: -C
// is how scripts look at bytes, and its padding, its "*" for repeated
// lines and its end offset are what they parse. The built-in formats
// (-b -c -C -d -o -x and the default 16-bit words) are implemented; -e
// and -f, which take format strings, are not and fail clearly.
func hexdump(e *proc.Env, args []string) int {
	opts, operands, err := proc.Getopt{Spec: hexdumpOpts, Posix: posixlyCorrect(e)}.Parse(args[1:])
	if err != nil {
		return e.Usage("hexdump", 1, "%v", err)
	}
	h := &hexdumper{e: e, length: -1, vflag: hexFirst, ateof: true}
	add := func(fss ...hexFs) { h.fss = append(h.fss, fss...) }
	for _, o := range opts {
		switch o.Key {
		case "b":
			add(hexEndFs(7), hexLineFs(16, hexConv("", 'o', 3, 1)))
		case "c":
			add(hexEndFs(7), hexLineFs(16, hexConv("", 'c', 3, 1)))
		case "C":
			add(hexEndFs(8),
				hexFs{fus: []hexFu{
					{1, []hexPr{hexConv("", 'a', 8, 0), hexText("  ")}},
					{8, []hexPr{hexConv("", 'x', 2, 1), hexText(" ")}},
					{1, []hexPr{hexText("  ")}},
					{8, []hexPr{hexConv("", 'x', 2, 1), hexText(" ")}},
				}},
				hexFs{fus: []hexFu{
					{1, []hexPr{hexText("  |")}},
					{16, []hexPr{hexConv("", 'p', 0, 1)}},
					{1, []hexPr{hexText("|\n")}},
				}})
		case "d":
			add(hexEndFs(7), hexLineFs(8, hexConv("  ", 'u', 5, 2)))
		case "o":
			add(hexEndFs(7), hexLineFs(8, hexConv(" ", 'o', 6, 2)))
		case "x":
			add(hexEndFs(7), hexLineFs(8, hexConv("   ", 'x', 4, 2)))
		case "e", "f":
			e.Errorf("hexdump", "-%s is not supported in skillrun's sandboxed shell", o.Key)
			return 1
		case "L":
			// Colours are for a terminal, which the sandbox never has,
			// and the built-in formats ask for none; only the mode is
			// checked.
			if o.HasVal && o.Val != "auto" && o.Val != "never" && o.Val != "always" {
				e.Errorf("hexdump", "unsupported color mode: '%s'", o.Val)
				return 1
			}
		case "n", "s":
			v, errText := hexParseSize(o.Val)
			if errText != "" {
				what := "length"
				if o.Key == "s" {
					what = "offset"
				}
				e.Errorf("hexdump", "failed to parse %s: '%s': %s", what, o.Val, errText)
				return 1
			}
			if o.Key == "s" {
				h.skip = v
			} else if v <= math.MaxInt64 {
				h.length = int64(v)
			}
		case "v":
			h.vflag = hexAll
		case "h":
			fmt.Fprint(e.Stdout, "\nUsage:\n hexdump [options] <file>...\n\n"+
				"This is skillrun's sandboxed hexdump: util-linux 2.38's -b, -c, -C, -d, -o, -x,\n"+
				"-n, -s and -v; -e and -f are not supported.\n")
			return 0
		case "V":
			fmt.Fprintln(e.Stdout, "hexdump from util-linux 2.38.1")
			return 0
		}
	}
	if len(h.fss) == 0 {
		add(hexEndFs(7), hexLineFs(8, hexConv("", 'x', 4, 2)))
	}
	for i := range h.fss {
		if h.fss[i].end {
			h.endFs = &h.fss[i] // the last one added wins
		}
		size := 0
		for _, fu := range h.fss[i].fus {
			for _, pr := range fu.prs {
				size += fu.reps * pr.size
			}
		}
		h.bs = max(h.bs, size)
	}
	h.names = operands
	h.out = newOutput(e.Stdout)
	defer h.closeInput()
	h.display()
	if h.out.flush() != nil {
		h.status = 1
	}
	return h.status
}

// hexParseSize parses -n and -s as util-linux's strtosize does: a
// number (0x hex, 0 octal), optionally with a decimal fraction and a
// suffix K, M, G... (powers of 1024, also with iB; powers of 1000 with
// B). It returns the errno text on failure.
func hexParseSize(s string) (uint64, string) {
	const invalid, tooLarge = "Invalid argument", "Numerical result out of range"
	if s == "" || strings.HasPrefix(strings.TrimLeft(s, " \t\n\v\f\r"), "-") {
		return 0, invalid
	}
	x, rest, overflow := odScanUint(s, 0)
	switch {
	case rest == s:
		return 0, invalid
	case overflow:
		return 0, tooLarge
	case rest == "":
		return x, ""
	}
	base := uint64(1024)
	var frac uint64
	fracZeros := 0
	for {
		if len(rest) == 3 && rest[1] == 'i' && (rest[2] == 'B' || rest[2] == 'b') {
			base = 1024
		} else if len(rest) == 2 && (rest[1] == 'B' || rest[1] == 'b') {
			base = 1000
		} else if len(rest) > 1 {
			if frac != 0 || rest[0] != '.' {
				return 0, invalid
			}
			f := rest[1:]
			for strings.HasPrefix(f, "0") {
				f, fracZeros = f[1:], fracZeros+1
			}
			if f != "" && isDigit(f[0]) {
				var ov bool
				if frac, f, ov = odScanUint(f, 0); ov {
					return 0, tooLarge
				}
			}
			if f == "" {
				return 0, invalid // a fraction without a suffix
			}
			rest = f
			continue
		}
		break
	}
	pwr := strings.IndexByte("KMGTPEZY", rest[0]) + 1
	if pwr == 0 {
		pwr = strings.IndexByte("kmgtpezy", rest[0]) + 1
	}
	if pwr == 0 {
		return 0, invalid
	}
	unit := uint64(1)
	for range pwr {
		if x > math.MaxUint64/base {
			return 0, tooLarge
		}
		x *= base
		unit *= base // wraps for Y, as util-linux's does
	}
	if frac != 0 {
		// Each digit of the fraction adds its share of the unit,
		// rounded down digit by digit as util-linux computes it.
		div := uint64(10)
		for div < frac {
			if div <= math.MaxUint64/10 {
				div *= 10
			} else {
				frac /= 10
			}
		}
		for range fracZeros {
			if div <= math.MaxUint64/10 {
				div *= 10
			} else {
				frac /= 10
			}
		}
		for pos := uint64(1); ; {
			seg := frac % 10
			segDiv := div / pos
			frac /= 10
			pos *= 10
			if seg != 0 && segDiv/seg != 0 {
				x += unit / (segDiv / seg)
			}
			if frac == 0 {
				break
			}
		}
	}
	return x, ""
}

// hexdumper is hexdump's state: its formats and its reading of the
// operands, one after the other as if they were one input.
type hexdumper struct {
	e      *proc.Env
	out    *output
	fss    []hexFs
	endFs  *hexFs
	bs     int   // bytes per block, the widest format's
	length int64 // bytes left to dump (-n), -1 for all
	skip   uint64
	vflag  int
	status int

	names    []string  // operands not opened yet
	opened   bool      // an input has been opened (hexdump's "done")
	ateof    bool      // the current input is at its end
	file     io.Reader // the current input
	r        io.Reader // file, buffered
	closer   io.Closer
	name     string // the current input as messages name it
	closed   bool   // a failed open closed standard input, as freopen does
	fatal    bool   // an error ended the dump
	readErr  error
	cur, sav []byte
	address  uint64 // offset of the block being read
	eaddress uint64 // offset where the input ended, 0 until then
	started  bool
}

func (h *hexdumper) warn(name string, err error) {
	_ = h.out.flush()
	fmt.Fprintf(h.e.Stderr, "hexdump: %s: %s\n", name, proc.ErrorText(err))
}

// closeInput closes the current input; standard input stays open for
// the shell.
func (h *hexdumper) closeInput() {
	if h.closer != nil {
		_ = h.closer.Close()
	}
	h.file, h.r, h.closer = nil, nil, nil
}

// setInput makes f the current input, buffered as stdio buffers it.
func (h *hexdumper) setInput(f io.Reader, c io.Closer, name string) {
	h.file, h.closer, h.name = f, c, name
	h.r = bufio.NewReaderSize(f, 32*1024)
	h.readErr = nil
}

// next opens the next operand, standard input if there were none, and
// skips into it what -s leaves to skip. It returns false when the
// inputs are exhausted or an error ended the dump.
func (h *hexdumper) next() bool {
	for {
		statok, name := false, "stdin"
		if len(h.names) > 0 {
			name = h.names[0]
			h.names = h.names[1:]
			h.closeInput()
			path := name
			if path == "-" {
				path = "./-" // a file name to hexdump, not standard input
			}
			rc, err := h.e.Open(path)
			if err != nil {
				h.warn(name, err)
				h.status, h.closed = 1, true
				continue
			}
			h.setInput(rc, rc, name)
			h.closed, statok, h.opened = false, true, true
		} else {
			if h.opened {
				return false
			}
			h.opened = true
			if !h.closed {
				h.setInput(h.e.Stdin, nil, "stdin")
			}
		}
		if h.skip > 0 && !h.doskip(statok, name) {
			h.fatal, h.status = true, 1
			return false
		}
		if h.skip == 0 {
			return true
		}
	}
}

// doskip skips -s bytes: past a whole regular file smaller than what is
// left to skip, else by seeking, which fails on a pipe as it does for
// hexdump ("Illegal seek").
func (h *hexdumper) doskip(statok bool, name string) bool {
	if h.skip > math.MaxInt64 {
		h.warn(name, fs.ErrInvalid)
		return false
	}
	var fi fs.FileInfo
	if st, ok := h.file.(interface{ Stat() (fs.FileInfo, error) }); ok && !h.closed {
		var err error
		if fi, err = st.Stat(); err != nil && statok {
			h.warn(name, err)
			return false
		}
	}
	if statok && fi != nil && fi.Mode().IsRegular() && h.skip > uint64(fi.Size()) {
		h.skip -= uint64(fi.Size())
		h.address += uint64(fi.Size())
		return true
	}
	switch f, ok := h.file.(*os.File); {
	case h.closed:
		_ = h.out.flush()
		fmt.Fprintf(h.e.Stderr, "hexdump: %s: Bad file descriptor\n", name)
		return false
	case fi != nil && fi.IsDir():
		// Seeking a directory succeeds; reading it fails later.
	case ok:
		if _, err := f.Seek(int64(h.skip), io.SeekStart); err != nil {
			h.warn(name, err)
			return false
		}
	default:
		_ = h.out.flush()
		fmt.Fprintf(h.e.Stderr, "hexdump: %s: Illegal seek\n", name)
		return false
	}
	h.address += h.skip
	h.skip = 0
	return true
}

// read reads up to len(buf) bytes of the current input, as fread does:
// less only at its end or on an error, which the next call reports.
func (h *hexdumper) read(buf []byte) int {
	if h.readErr != nil {
		h.warn(h.name, h.readErr)
		h.readErr = nil
		return 0
	}
	n, err := io.ReadFull(h.r, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		if n == 0 {
			h.warn(h.name, err)
		} else {
			h.readErr = err
		}
	}
	return n
}

// get returns the next block to display, zero-padded at the end of the
// input, or nil when there is none. Blocks equal to the one before are
// not returned: a "*" line stands for them.
func (h *hexdumper) get() []byte {
	if !h.started {
		h.cur, h.sav = make([]byte, h.bs), make([]byte, h.bs)
		h.started = true
	} else {
		h.cur, h.sav = h.sav, h.cur
		h.address += uint64(h.bs)
	}
	need, nread := h.bs, 0
	for !h.e.Cancelled() {
		if h.length == 0 || h.ateof && !h.next() {
			if need == h.bs || h.fatal {
				return nil
			}
			clear(h.cur[nread:])
			h.eaddress = h.address + uint64(nread)
			return h.cur
		}
		if h.closed {
			_ = h.out.flush()
			fmt.Fprintln(h.e.Stderr, "hexdump: all input file arguments failed")
			return nil
		}
		want := need
		if h.length >= 0 && h.length < int64(want) {
			want = int(h.length)
		}
		n := h.read(h.cur[nread : nread+want])
		if n == 0 {
			h.ateof = true
			continue
		}
		h.ateof = false
		if h.length >= 0 {
			h.length -= int64(n)
		}
		if need -= n; need > 0 {
			nread += n
			continue
		}
		if h.vflag == hexAll || h.vflag == hexFirst || !bytes.Equal(h.cur, h.sav) {
			if h.vflag == hexDup || h.vflag == hexFirst {
				h.vflag = hexWait
			}
			return h.cur
		}
		if h.vflag == hexWait {
			_, _ = h.out.WriteString("*\n")
		}
		h.vflag = hexDup
		h.address += uint64(h.bs)
		need, nread = h.bs, 0
	}
	return nil
}

// display writes each block in every format, then the end offset.
func (h *hexdumper) display() {
	for bp := h.get(); bp != nil && !h.out.failed(); bp = h.get() {
		for i := range h.fss {
			f := &h.fss[i]
			if f.end {
				continue
			}
			addr, off := h.address, 0
			for j := range f.fus {
				fu := &f.fus[j]
				for cnt := fu.reps; cnt > 0; cnt-- {
					for k := range fu.prs {
						pr := &fu.prs[k]
						if h.eaddress != 0 && addr >= h.eaddress && pr.conv != 0 {
							pr.bpad = true
						}
						// The last repetition drops the unit's
						// trailing blank.
						last := fu.reps > 1 && cnt == 1 && k == len(fu.prs)-1
						h.print(pr, bp[off:], addr, last)
						addr += uint64(pr.size)
						off += pr.size
					}
				}
			}
		}
	}
	if h.endFs == nil || h.fatal {
		return
	}
	if h.eaddress == 0 {
		if h.address == 0 {
			return
		}
		h.eaddress = h.address
	}
	for _, pr := range h.endFs.fus[0].prs {
		if pr.conv == 'A' {
			h.number(&pr, h.eaddress, 16)
		} else {
			_, _ = h.out.WriteString(pr.pre)
		}
	}
}

// number writes pr's text and v in base, zero-padded to pr's width.
func (h *hexdumper) number(pr *hexPr, v uint64, base int) {
	_, _ = h.out.WriteString(pr.pre)
	var buf [24]byte
	s := strconv.AppendUint(buf[:0], v, base)
	h.pad('0', pr.width-len(s))
	_, _ = h.out.Write(s)
}

// pad writes n times c.
func (h *hexdumper) pad(c byte, n int) {
	for ; n > 0; n-- {
		_ = h.out.WriteByte(c)
	}
}

// print writes one conversion of the block b at offset addr, or its
// text; dropBlank drops a text's final blank (a unit's last repetition).
func (h *hexdumper) print(pr *hexPr, b []byte, addr uint64, dropBlank bool) {
	switch {
	case pr.conv == 0:
		text := pr.pre
		if dropBlank && text != "" && strings.IndexByte(" \t\n\v\f\r", text[len(text)-1]) >= 0 {
			text = text[:len(text)-1]
		}
		_, _ = h.out.WriteString(text)
	case pr.bpad:
		_, _ = h.out.WriteString(pr.pre)
		h.pad(' ', pr.width)
	case pr.conv == 'a':
		h.number(pr, addr, 16)
	case pr.conv == 'c':
		// As od -c: an escape, the character or its octal code.
		var buf [4]byte
		s := append(buf[:0], b[0])
		if i := strings.IndexByte("\x00\a\b\f\n\r\t\v", b[0]); i >= 0 {
			s = append(buf[:0], '\\', "0abfnrtv"[i])
		} else if !odPrintable(b[0]) {
			s = append(buf[:0], '0'+b[0]>>6, '0'+b[0]>>3&7, '0'+b[0]&7)
		}
		_, _ = h.out.WriteString(pr.pre)
		h.pad(' ', pr.width-len(s))
		_, _ = h.out.Write(s)
	case pr.conv == 'p':
		c := b[0]
		if !odPrintable(c) {
			c = '.'
		}
		_, _ = h.out.WriteString(pr.pre)
		_ = h.out.WriteByte(c)
	default:
		var v uint64
		for i := pr.size - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		base := 10
		switch pr.conv {
		case 'x':
			base = 16
		case 'o':
			base = 8
		}
		h.number(pr, v, base)
	}
}
