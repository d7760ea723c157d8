package filecmd

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// printfNode is find -printf. It supports the directives scripts use:
// %p %f %h %P %H %d %s %k %b %m %M %y %Y %l %u %g %U %G %n %i, the times
// %t %a %c and %T<k> %A<k> %C<k> (all the modification time: fs.FileInfo
// has no other), %%, flags and widths ("%-10s"), and the escapes \n \t
// \0 \\ \a \b \f \r \v \c and \NNN.
type printfNode struct{ format string }

func (n *printfNode) eval(fd *finder, f *findFile) bool {
	_, _ = fd.w.WriteString(findPrintf(fd, n.format, f))
	return true
}

func findPrintf(fd *finder, format string, f *findFile) string {
	var b strings.Builder
	loc := location(fd.e.Getenv("TZ"), fd.e.LookupEnv)
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch c {
		case '\\':
			if i+1 >= len(format) {
				b.WriteByte('\\')
				continue
			}
			i++
			switch e := format[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'v':
				b.WriteByte('\v')
			case '\\':
				b.WriteByte('\\')
			case 'c':
				return b.String()
			default:
				if e >= '0' && e <= '7' {
					j := i
					for j < len(format) && j < i+3 && format[j] >= '0' && format[j] <= '7' {
						j++
					}
					v, _ := strconv.ParseUint(format[i:j], 8, 8)
					b.WriteByte(byte(v))
					i = j - 1
				} else {
					b.WriteByte('\\')
					b.WriteByte(e)
				}
			}
		case '%':
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
				j++
			}
			for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.') {
				j++
			}
			if j >= len(format) {
				b.WriteString(format[i:])
				return b.String()
			}
			spec := format[i+1 : j]
			d := format[j]
			if d == '%' {
				b.WriteByte('%')
				i = j
				continue
			}
			var val string
			numeric := false
			switch d {
			case 'p':
				val = f.path
			case 'f':
				val = f.name()
			case 'h':
				val = path.Dir(trimSlashes(f.path))
				if !strings.Contains(trimSlashes(f.path), "/") {
					val = "."
				}
			case 'P':
				val = strings.TrimPrefix(strings.TrimPrefix(f.path, f.start), "/")
			case 'H':
				val = f.start
			case 'd':
				val, numeric = itoa(f.depth), true
			case 's':
				val, numeric = strconv.FormatInt(f.fi.Size(), 10), true
			case 'k':
				val, numeric = strconv.FormatInt(blocks1K(f.fi), 10), true
			case 'b':
				val, numeric = strconv.FormatInt(blocks1K(f.fi)*2, 10), true
			case 'm':
				val = strconv.FormatUint(uint64(unixMode(f.fi.Mode())), 8)
			case 'M':
				val = modeString(f.fi.Mode())
			case 'y', 'Y':
				fi := f.fi
				if d == 'Y' && fi.Mode()&fs.ModeSymlink != 0 {
					if s, err := os.Stat(f.abs); err == nil {
						fi = s
					} else {
						val = "N"
						break
					}
				}
				val = string("fdlpscb"[typeIndex(fi.Mode())])
			case 'l':
				if f.fi.Mode()&fs.ModeSymlink != 0 {
					val, _ = os.Readlink(f.abs)
				}
			case 'u', 'g':
				val = sandboxUser
			case 'U', 'G':
				val, numeric = itoa(sandboxUID), true
			case 'n':
				val, numeric = itoa(nlink(lsEntry{path: f.abs, fi: f.fi})), true
			case 'i':
				val, numeric = "0", true
			case 't', 'a', 'c':
				val = findTime(f.fi.ModTime().In(loc), 'c')
			case 'T', 'A', 'C':
				if j+1 >= len(format) {
					b.WriteString(format[i:])
					return b.String()
				}
				j++
				val = findTime(f.fi.ModTime().In(loc), format[j])
			default:
				// GNU warns about unknown directives and prints them.
				b.WriteString(format[i : j+1])
				i = j
				continue
			}
			i = j
			if spec == "" {
				b.WriteString(val)
				continue
			}
			verb := "s"
			if numeric && !strings.Contains(spec, ".") {
				verb = "d"
				n, _ := strconv.ParseInt(val, 10, 64)
				fmt.Fprintf(&b, "%"+spec+verb, n)
				continue
			}
			fmt.Fprintf(&b, "%"+spec+verb, val)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func typeIndex(m fs.FileMode) int {
	switch {
	case m.IsDir():
		return 1
	case m&fs.ModeSymlink != 0:
		return 2
	case m&fs.ModeNamedPipe != 0:
		return 3
	case m&fs.ModeSocket != 0:
		return 4
	case m&fs.ModeCharDevice != 0:
		return 5
	case m&fs.ModeDevice != 0:
		return 6
	}
	return 0
}

// findTime is one %T<k> field. GNU find adds the fraction of the second
// (ten digits) to the fields that show seconds.
func findTime(t time.Time, k byte) string {
	frac := fmt.Sprintf(".%09d0", t.Nanosecond())
	switch k {
	case '@':
		return strconv.FormatInt(t.Unix(), 10) + frac
	case 'c':
		return strftime(t, "%a %b %e %H:%M:%S") + frac + strftime(t, " %Y")
	case 'S':
		return strftime(t, "%S") + frac
	case 'T':
		return strftime(t, "%H:%M:%S") + frac
	case '+':
		return strftime(t, "%Y-%m-%d+%H:%M:%S") + frac
	}
	return strftime(t, "%"+string(k))
}
