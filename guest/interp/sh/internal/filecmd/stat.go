package filecmd

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// stat prints what fs.FileInfo knows. Device and inode numbers are 0,
// the owner is the sandbox user, and access, change and birth times are
// the modification time (WASI's stat gives no more through Go's os).
func stat(e *proc.Env, args []string) int {
	opts, ops, st, ok := parseArgs(e, "stat", 1, proc.Getopt{Spec: "c,format: ,printf: L,dereference f,file-system t,terse ,cached:"}, args[1:])
	if !ok {
		return st
	}
	format, deref, terse := "", false, false
	nl := true
	for _, o := range opts {
		switch o.Key {
		case "c":
			format, nl = o.Val, true
		case "printf":
			format, nl = o.Val, false
		case "L":
			deref = true
		case "t":
			terse = true
		case "f":
			e.Errorf("stat", "file system information is not available in the sandbox")
			return 1
		}
	}
	if len(ops) == 0 {
		return e.Usage("stat", 1, "missing operand")
	}
	status := 0
	for _, name := range ops {
		p := e.Path(name)
		var fi fs.FileInfo
		var err error
		if deref {
			fi, err = os.Stat(p)
		} else {
			fi, err = os.Lstat(p)
		}
		if err != nil {
			e.Errorf("stat", "cannot statx %s: %s", qa(name), proc.ErrorText(err))
			status = 1
			continue
		}
		var out string
		switch {
		case format != "" && nl:
			out = statFormat(e, format, name, p, fi, false) + "\n"
		case format != "":
			out = statFormat(e, format, name, p, fi, true)
		case terse:
			out = statFormat(e, "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o", name, p, fi, false) + "\n"
		default:
			f := "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\nDevice: %Hd,%Ld\tInode: %-11i Links: %h\nAccess: (%04a/%A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: %w\n"
			out = statFormat(e, f, name, p, fi, false)
		}
		fmt.Fprint(e.Stdout, out)
	}
	return status
}

// statFormat expands stat's %-directives; escapes are interpreted only
// for --printf.
func statFormat(e *proc.Env, format, name, p string, fi fs.FileInfo, escapes bool) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' && escapes && i+1 < len(format) {
			i++
			switch format[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\':
				b.WriteByte('\\')
			case '"':
				b.WriteByte('"')
			case 'a':
				b.WriteByte('\a')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte('\\')
				b.WriteByte(format[i])
			}
			continue
		}
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0'", format[j]) >= 0 {
			j++
		}
		for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.') {
			j++
		}
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		spec := format[i+1 : j]
		d := format[j]
		if d == 'H' || d == 'L' {
			if j+1 < len(format) {
				j++
				d = '0'
			}
		}
		var val string
		numeric := true
		m := fi.Mode()
		switch d {
		case '%':
			val, numeric = "%", false
		case 'n':
			val, numeric = name, false
		case 'N':
			val, numeric = qa(name), false
			if m&fs.ModeSymlink != 0 {
				if t, err := os.Readlink(p); err == nil {
					val += " -> " + qa(t)
				}
			}
		case 's':
			val = strconv.FormatInt(fi.Size(), 10)
		case 'a':
			val = strconv.FormatUint(uint64(unixMode(m)), 8)
			if strings.Contains(spec, "#") {
				val = "0" + val
			}
		case 'A':
			val, numeric = modeString(m), false
		case 'f':
			val, numeric = strconv.FormatUint(uint64(rawMode(m)), 16), false
		case 'F':
			val, numeric = fileType(fi), false
		case 'u', 'g':
			val = itoa(sandboxUID)
		case 'U', 'G':
			val, numeric = sandboxUser, false
		case 'b':
			val = strconv.FormatInt(blocks1K(fi)*2, 10)
		case 'B':
			val = "512"
		case 'o':
			val = "4096"
		case 'h':
			val = itoa(nlink(lsEntry{path: p, fi: fi}))
		case 'i', 'd', '0', 'r', 't', 'T':
			val = "0"
		case 'D':
			val, numeric = "0", false
		case 'x', 'y', 'z':
			val, numeric = stampNano(fi.ModTime().In(location(e.Getenv("TZ"), e.LookupEnv))), false
		case 'w':
			val, numeric = "-", false
		case 'X', 'Y', 'Z':
			val = strconv.FormatInt(fi.ModTime().Unix(), 10)
			if strings.HasPrefix(spec, ".") {
				val += fmt.Sprintf(".%09d", fi.ModTime().Nanosecond())[:len(spec)]
				spec = ""
			}
		case 'W':
			val = "0"
		case 'm':
			val, numeric = "/", false
		case 'C':
			val, numeric = "?", false
		default:
			b.WriteString(format[i : j+1])
			i = j
			continue
		}
		i = j
		spec = strings.ReplaceAll(spec, "#", "")
		if spec == "" {
			b.WriteString(val)
		} else if n, err := strconv.ParseInt(val, 10, 64); err == nil && numeric && !strings.Contains(spec, ".") {
			fmt.Fprintf(&b, "%"+spec+"d", n)
		} else {
			fmt.Fprintf(&b, "%"+spec+"s", val)
		}
	}
	return b.String()
}

// rawMode is st_mode with the file type bits, for %f.
func rawMode(m fs.FileMode) uint32 {
	t := uint32(0o100000)
	switch {
	case m.IsDir():
		t = 0o040000
	case m&fs.ModeSymlink != 0:
		t = 0o120000
	case m&fs.ModeNamedPipe != 0:
		t = 0o010000
	case m&fs.ModeSocket != 0:
		t = 0o140000
	case m&fs.ModeCharDevice != 0:
		t = 0o020000
	case m&fs.ModeDevice != 0:
		t = 0o060000
	}
	return t | unixMode(m)
}
