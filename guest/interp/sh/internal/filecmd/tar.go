package filecmd

import (
	"archive/tar"
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// tarrer is tar: create (-c), list (-t) and extract (-x) with gzip (-z,
// and detected on reading) and bzip2 (reading only). Archives are
// written in GNU format with the sandbox user as owner.
//
// Extraction never writes outside the target directory: leading '/' is
// removed from member and link names, members with a ".." component are
// refused, as GNU tar does, and every file is created through a parent
// directory that resolves (following existing symbolic links) inside the
// target. Symbolic links whose target is absolute or climbs with ".."
// are created only after all other members, with a placeholder file in
// the meantime, which is GNU tar's protection against archives that
// write through their own links.
type tarrer struct {
	e                 *proc.Env
	mode              byte // 'c', 'x', 't'
	archive           string
	gz, bz            bool
	verbose           int
	toStdout, keepOld bool
	noMtime           bool
	strip             int
	excludes          []string
	status            int
	warned            map[string]bool
	msgOut            io.Writer
	delayed           []delayedLink
	dirTimes          []dirTime
	archiveInfo       fs.FileInfo
	ugsWidth          int
}

type delayedLink struct {
	path, target string
	placeholder  fs.FileInfo
	name         string
}

type dirTime struct {
	path string
	mode fs.FileMode
	t    time.Time
}

// tarOptionsWithArg are the single-letter options that take a value, for
// the old bundled syntax ("tar czf x.tgz dir").
const tarOptionsWithArg = "fCTXbKNgLV"

func tarCmd(e *proc.Env, args []string) int {
	args = args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// Old style: the first word is a bundle of letters whose values
		// follow it in order.
		bundle, rest := args[0], args[1:]
		var expanded []string
		for _, c := range bundle {
			expanded = append(expanded, "-"+string(c))
			if strings.ContainsRune(tarOptionsWithArg, c) && len(rest) > 0 {
				expanded = append(expanded, rest[0])
				rest = rest[1:]
			}
		}
		args = append(expanded, rest...)
	}
	opts, _, st, ok := parseArgs(e, "tar", 2, proc.Getopt{Spec: "A,catenate,concatenate c,create d,diff,compare ,delete r,append t,list u,update x,extract,get C,directory: f,file: z,gzip,gunzip,ungzip j,bzip2 J,xz a,auto-compress v,verbose p,preserve-permissions,same-permissions k,keep-old-files ,overwrite ,no-same-owner ,same-owner ,no-same-permissions ,numeric-owner O,to-stdout m,touch ,strip-components: ,exclude: T,files-from: X,exclude-from: h,dereference P,absolute-names ,owner: ,group: ,mode: ,mtime: ,sort: ,wildcards ,no-wildcards ,anchored ,no-anchored ,recursion ,no-recursion o ,format: H: ,warning: ,totals:: ,checkpoint:: ,ignore-failed-read ,force-local ,remove-files ,no-overwrite-dir ,keep-newer-files ,transform: ,xform: ,exclude-vcs ,exclude-caches", Ordered: true}, args)
	if !ok {
		return st
	}
	t := &tarrer{e: e, archive: "-", warned: map[string]bool{}, msgOut: e.Stdout, ugsWidth: 18}
	// Operands interleave with -C: each operand is taken relative to the
	// last -C before it.
	type operand struct{ name, dir string }
	var operands []operand
	dir := e.Dir
	for _, o := range opts {
		switch o.Key {
		case "":
			operands = append(operands, operand{o.Val, dir})
		case "c", "x", "t":
			if t.mode != 0 && t.mode != o.Key[0] {
				e.Errorf("tar", "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option")
				fmt.Fprintln(e.Stderr, "Try 'tar --help' or 'tar --usage' for more information.")
				return 2
			}
			t.mode = o.Key[0]
		case "A", "d", "delete", "r", "u":
			e.Errorf("tar", "option %s is not supported in the sandbox", q("-"+o.Key))
			return 2
		case "C":
			dir = path.Join(dir, o.Val)
			if path.IsAbs(o.Val) {
				dir = path.Clean(o.Val)
			}
		case "f":
			t.archive = o.Val
		case "z":
			t.gz = true
		case "j":
			t.bz = true
		case "J":
			e.Errorf("tar", "xz compression is not supported in the sandbox")
			return 2
		case "a":
		case "v":
			t.verbose++
		case "k":
			t.keepOld = true
		case "O":
			t.toStdout = true
		case "m":
			t.noMtime = true
		case "strip-components":
			n, err := fmt.Sscanf(o.Val, "%d", &t.strip)
			if n != 1 || err != nil || t.strip < 0 {
				e.Errorf("tar", "Invalid number of elements: %s", q(o.Val))
				return 2
			}
		case "exclude":
			t.excludes = append(t.excludes, o.Val)
		case "T":
			data, err := readFileArg(e, o.Val)
			if err != nil {
				e.Errorf("tar", "%s: Cannot open: %s", o.Val, proc.ErrorText(err))
				return 2
			}
			for _, l := range strings.Split(data, "\n") {
				if l != "" {
					operands = append(operands, operand{l, dir})
				}
			}
		case "X":
			data, err := readFileArg(e, o.Val)
			if err != nil {
				e.Errorf("tar", "%s: Cannot open: %s", o.Val, proc.ErrorText(err))
				return 2
			}
			for _, l := range strings.Split(data, "\n") {
				if l != "" {
					t.excludes = append(t.excludes, l)
				}
			}
		}
	}
	if t.mode == 0 {
		e.Errorf("tar", "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options")
		fmt.Fprintln(e.Stderr, "Try 'tar --help' or 'tar --usage' for more information.")
		return 2
	}
	if t.archive == "-" && t.mode == 'c' {
		t.msgOut = e.Stderr
	}
	switch t.mode {
	case 'c':
		if len(operands) == 0 {
			e.Errorf("tar", "Cowardly refusing to create an empty archive")
			fmt.Fprintln(e.Stderr, "Try 'tar --help' or 'tar --usage' for more information.")
			return 2
		}
		if t.archive != "-" && (t.gz || strings.HasSuffix(t.archive, ".tgz")) {
			t.gz = true
		}
		var names, dirs []string
		for _, op := range operands {
			names, dirs = append(names, op.name), append(dirs, op.dir)
		}
		if !t.create(names, dirs) {
			return 2
		}
	default:
		var names []string
		for _, op := range operands {
			names = append(names, op.name)
		}
		if !t.read(names, dir) {
			return 2
		}
	}
	if t.status != 0 {
		e.Errorf("tar", "Exiting with failure status due to previous errors")
	}
	return t.status
}

func readFileArg(e *proc.Env, name string) (string, error) {
	f, err := e.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

func (t *tarrer) errorf(format string, a ...any) {
	t.e.Errorf("tar", format, a...)
	t.status = 2
}

// warnOnce prints a "Removing leading ..." message the first time.
func (t *tarrer) warnOnce(msg string) {
	if !t.warned[msg] {
		t.warned[msg] = true
		t.e.Errorf("tar", "%s", msg)
	}
}

func (t *tarrer) excluded(name string) bool {
	for _, pat := range t.excludes {
		if fnmatch(pat, name, 0) || fnmatch(pat, path.Base(name), 0) {
			return true
		}
	}
	return false
}

// ---- create ----

func (t *tarrer) create(names, dirs []string) bool {
	var out io.Writer = t.e.Stdout
	if t.archive != "-" {
		f, err := os.Create(t.e.Path(t.archive))
		if err != nil {
			t.e.Errorf("tar", "%s: Cannot open: %s", t.archive, proc.ErrorText(err))
			t.e.Errorf("tar", "Error is not recoverable: exiting now")
			return false
		}
		defer f.Close()
		t.archiveInfo, _ = f.Stat()
		out = f
	}
	bw := bufio.NewWriter(out)
	var zw *gzip.Writer
	if t.gz {
		zw = gzip.NewWriter(bw)
		zw.OS = 3
		out = zw
	} else {
		out = bw
	}
	tw := tar.NewWriter(out)
	for i, name := range names {
		member := name
		if strings.HasPrefix(member, "/") {
			t.warnOnce("Removing leading `/' from member names")
			member = strings.TrimLeft(member, "/")
			if member == "" {
				member = "."
			}
		}
		p := name
		if !path.IsAbs(p) {
			p = path.Join(dirs[i], p)
		}
		t.add(tw, p, name, member)
	}
	err := tw.Close()
	if zw != nil {
		if zerr := zw.Close(); err == nil {
			err = zerr
		}
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		if !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, syscall.EPIPE) {
			t.e.Errorf("tar", "%s: Cannot write: %s", t.archive, proc.ErrorText(err))
			t.e.Errorf("tar", "Error is not recoverable: exiting now")
		}
		return false
	}
	return true
}

// add writes one file (and a directory's contents) to the archive.
func (t *tarrer) add(tw *tar.Writer, p, shown, member string) {
	if t.e.Cancelled() || t.excluded(member) {
		return
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.errorf("%s: Cannot stat: %s", shown, proc.ErrorText(err))
		return
	}
	if t.archiveInfo != nil && os.SameFile(fi, t.archiveInfo) {
		t.e.Errorf("tar", "%s: file is the archive; not dumped", shown)
		return
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		link, _ = os.Readlink(p)
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		t.errorf("%s: %s", shown, err)
		return
	}
	hdr.Name = member
	if fi.IsDir() && !strings.HasSuffix(member, "/") {
		hdr.Name += "/"
	}
	hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = sandboxUID, sandboxUID, sandboxUser, sandboxUser
	hdr.ModTime = fi.ModTime().Truncate(time.Second)
	hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
	hdr.Format = tar.FormatGNU
	if !fi.Mode().IsRegular() && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
		t.e.Errorf("tar", "%s: socket ignored", shown)
		return
	}
	if err := tw.WriteHeader(hdr); err != nil {
		t.errorf("%s: %s", shown, err)
		return
	}
	t.listCreate(hdr)
	if fi.Mode().IsRegular() {
		f, err := os.Open(p)
		if err != nil {
			t.errorf("%s: Cannot open: %s", shown, proc.ErrorText(err))
			return
		}
		_, err = io.CopyN(tw, f, fi.Size())
		f.Close()
		if err != nil {
			t.errorf("%s: Read error: %s", shown, proc.ErrorText(err))
		}
	}
	if fi.IsDir() {
		entries, err := os.ReadDir(p)
		if err != nil {
			t.errorf("%s: Cannot open: %s", shown, proc.ErrorText(err))
			return
		}
		for _, de := range entries {
			t.add(tw, path.Join(p, de.Name()), joinPath(shown, de.Name()), joinPath(member, de.Name()))
		}
	}
}

func (t *tarrer) listCreate(hdr *tar.Header) {
	switch {
	case t.verbose == 1:
		fmt.Fprintln(t.msgOut, hdr.Name)
	case t.verbose > 1:
		fmt.Fprintln(t.msgOut, longListing(hdr, t.location(), &t.ugsWidth))
	}
}

func (t *tarrer) location() *time.Location {
	return location(t.e.Getenv("TZ"), t.e.LookupEnv)
}

// longListing is tar -tv's line for a member. ugsWidth is GNU's running
// width for "owner/group size": it starts at 18 (so that they fill 19
// columns with the space between them) and only grows.
func longListing(hdr *tar.Header, loc *time.Location, ugsWidth *int) string {
	mode := modeString(hdr.FileInfo().Mode())
	switch hdr.Typeflag {
	case tar.TypeLink:
		mode = "h" + mode[1:]
	case tar.TypeReg, tar.TypeGNUSparse:
		mode = "-" + mode[1:]
	}
	user, group := hdr.Uname, hdr.Gname
	if user == "" {
		user = itoa(hdr.Uid)
	}
	if group == "" {
		group = itoa(hdr.Gid)
	}
	size := fmt.Sprint(hdr.Size)
	if hdr.Typeflag == tar.TypeSymlink || hdr.Typeflag == tar.TypeLink || hdr.Typeflag == tar.TypeDir {
		size = "0"
	}
	pad := len(user) + 1 + len(group) + len(size)
	*ugsWidth = max(*ugsWidth, pad)
	line := fmt.Sprintf("%s %s/%s %*s %s %s", mode, user, group, *ugsWidth-pad+len(size), size, hdr.ModTime.In(loc).Format("2006-01-02 15:04"), hdr.Name)
	switch hdr.Typeflag {
	case tar.TypeSymlink:
		line += " -> " + hdr.Linkname
	case tar.TypeLink:
		line += " link to " + hdr.Linkname
	}
	return line
}

// ---- list and extract ----

func (t *tarrer) read(names []string, dir string) bool {
	var in io.Reader = t.e.Stdin
	if t.archive != "-" {
		f, err := os.Open(t.e.Path(t.archive))
		if err != nil {
			t.e.Errorf("tar", "%s: Cannot open: %s", t.archive, proc.ErrorText(err))
			t.e.Errorf("tar", "Error is not recoverable: exiting now")
			return false
		}
		defer f.Close()
		in = f
	}
	br := bufio.NewReader(in)
	magic, _ := br.Peek(3)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.e.Errorf("tar", "Child returned status 1")
			t.e.Errorf("tar", "Error is not recoverable: exiting now")
			return false
		}
		in = zr
	case len(magic) == 3 && string(magic) == "BZh":
		in = bzip2.NewReader(br)
	default:
		if t.gz {
			t.e.Errorf("tar", "Child returned status 1")
			t.e.Errorf("tar", "Error is not recoverable: exiting now")
			return false
		}
		in = br
	}
	found := make([]bool, len(names))
	tr := tar.NewReader(in)
	root := t.e.Path(dir)
	for n := 0; ; n++ {
		if t.e.Cancelled() {
			return false
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if n == 0 {
				t.e.Errorf("tar", "This does not look like a tar archive")
			} else {
				t.e.Errorf("tar", "Unexpected EOF in archive")
			}
			t.e.Errorf("tar", "Exiting with failure status due to previous errors")
			return false
		}
		if len(names) > 0 {
			match := false
			for i, want := range names {
				w := strings.TrimSuffix(want, "/")
				hn := strings.TrimSuffix(hdr.Name, "/")
				if hn == w || strings.HasPrefix(hn, w+"/") {
					found[i], match = true, true
				}
			}
			if !match {
				continue
			}
		}
		if t.excluded(strings.TrimSuffix(hdr.Name, "/")) {
			continue
		}
		if t.mode == 't' {
			// Only for the messages: GNU tar prints them when listing too.
			t.safeName(hdr.Name, "member names")
			if hdr.Typeflag == tar.TypeLink {
				t.safeName(hdr.Linkname, "hard link targets")
			}
			if t.verbose > 0 {
				fmt.Fprintln(t.e.Stdout, longListing(hdr, t.location(), &t.ugsWidth))
			} else {
				fmt.Fprintln(t.e.Stdout, hdr.Name)
			}
			continue
		}
		t.extract(tr, hdr, root)
	}
	t.finishExtract()
	for i, ok := range found {
		if !ok {
			t.errorf("%s: Not found in archive", names[i])
		}
	}
	return true
}

// safeName is GNU tar's safer_name_suffix: it removes leading slashes
// and anything up to a ".." component, saying so once per prefix; ok is
// false for a member name that contained "..".
func (t *tarrer) safeName(name, what string) (string, bool) {
	prefix := ""
	rest := name
	hadDotDot := false
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if p == ".." {
			prefix = strings.Join(parts[:i+1], "/") + "/"
			rest = strings.Join(parts[i+1:], "/")
			hadDotDot = true
		}
	}
	if !hadDotDot && strings.HasPrefix(name, "/") {
		rest = strings.TrimLeft(name, "/")
		prefix = name[:len(name)-len(rest)]
	}
	if prefix != "" {
		t.warnOnce(fmt.Sprintf("Removing leading `%s' from %s", prefix, what))
	}
	return strings.TrimLeft(rest, "/"), !hadDotDot
}

// target resolves a member name to a path under root, or "" (after an
// error message) if it cannot be written safely.
func (t *tarrer) target(root, name, shown string) string {
	p := path.Join(root, name)
	if !strings.HasPrefix(p, root+"/") && p != root {
		t.errorf("%s: Member name contains '..'", shown)
		return ""
	}
	// The parent must resolve inside the root even through links that
	// already exist there.
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.errorf("%s: Cannot open: %s", shown, proc.ErrorText(err))
		return ""
	}
	parent := resolveExisting(path.Dir(p))
	if parent != realRoot && !strings.HasPrefix(parent, strings.TrimSuffix(realRoot, "/")+"/") {
		t.errorf("%s: Cannot open: Not a directory", shown)
		return ""
	}
	for d := path.Dir(p); d != root && strings.HasPrefix(d, root); d = path.Dir(d) {
		if fi, err := os.Lstat(d); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
			t.errorf("%s: Cannot open: Not a directory", shown)
			return ""
		}
	}
	return p
}

func (t *tarrer) extract(tr *tar.Reader, hdr *tar.Header, root string) {
	name, ok := t.safeName(hdr.Name, "member names")
	if !ok {
		t.errorf("%s: Member name contains '..'", hdr.Name)
		return
	}
	if t.strip > 0 {
		parts := strings.Split(strings.TrimSuffix(name, "/"), "/")
		if len(parts) <= t.strip {
			return
		}
		name = strings.Join(parts[t.strip:], "/")
	}
	name = strings.TrimSuffix(name, "/")
	if name == "" || name == "." {
		if hdr.Typeflag != tar.TypeDir {
			return
		}
	}
	if t.verbose == 1 {
		fmt.Fprintln(t.e.Stdout, hdr.Name)
	} else if t.verbose > 1 {
		fmt.Fprintln(t.e.Stdout, longListing(hdr, t.location(), &t.ugsWidth))
	}
	if t.toStdout {
		if hdr.Typeflag == tar.TypeReg {
			_, _ = io.Copy(t.e.Stdout, tr)
		}
		return
	}
	if name == "" || name == "." {
		return
	}
	p := t.target(root, name, hdr.Name)
	if p == "" {
		return
	}
	if err := os.MkdirAll(path.Dir(p), 0o777); err != nil {
		t.errorf("%s: Cannot mkdir: %s", hdr.Name, proc.ErrorText(err))
		return
	}
	mode := hdr.FileInfo().Mode().Perm() &^ umask
	switch hdr.Typeflag {
	case tar.TypeDir:
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			if err == nil {
				_ = os.Remove(p)
			}
			if err := os.Mkdir(p, 0o700|mode); err != nil {
				t.errorf("%s: Cannot mkdir: %s", hdr.Name, proc.ErrorText(err))
				return
			}
		}
		t.dirTimes = append(t.dirTimes, dirTime{p, mode, hdr.ModTime})
	case tar.TypeReg, tar.TypeGNUSparse:
		if !t.replace(p, hdr.Name) {
			return
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.errorf("%s: Cannot open: %s", hdr.Name, proc.ErrorText(err))
			return
		}
		_, err = io.Copy(f, tr)
		f.Close()
		if err != nil {
			t.errorf("%s: Read error: %s", hdr.Name, proc.ErrorText(err))
			return
		}
		_ = os.Chmod(p, mode)
		if !t.noMtime {
			_ = os.Chtimes(p, hdr.ModTime, hdr.ModTime)
		}
	case tar.TypeSymlink:
		if !t.replace(p, hdr.Name) {
			return
		}
		if path.IsAbs(hdr.Linkname) || slices.Contains(strings.Split(hdr.Linkname, "/"), "..") {
			// Delay: a placeholder stops later members from writing
			// through the link.
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0)
			if err != nil {
				t.errorf("%s: Cannot create symlink to %s: %s", hdr.Name, q(hdr.Linkname), proc.ErrorText(err))
				return
			}
			f.Close()
			fi, _ := os.Lstat(p)
			t.delayed = append(t.delayed, delayedLink{path: p, target: hdr.Linkname, placeholder: fi, name: hdr.Name})
			return
		}
		if err := os.Symlink(hdr.Linkname, p); err != nil {
			t.errorf("%s: Cannot create symlink to %s: %s", hdr.Name, q(hdr.Linkname), proc.ErrorText(err))
		}
	case tar.TypeLink:
		link, _ := t.safeName(hdr.Linkname, "hard link targets")
		lp := path.Join(root, link)
		if !strings.HasPrefix(lp, root+"/") || t.target(root, link, hdr.Name) == "" {
			t.errorf("%s: Cannot hard link to %s: %s", hdr.Name, q(link), "Invalid argument")
			return
		}
		if !t.replace(p, hdr.Name) {
			return
		}
		if err := os.Link(lp, p); err != nil {
			t.errorf("%s: Cannot hard link to %s: %s", hdr.Name, q(link), proc.ErrorText(err))
		}
	case tar.TypeXGlobalHeader, tar.TypeXHeader:
	default:
		t.errorf("%s: Cannot mknod: Operation not permitted", hdr.Name)
	}
}

// replace removes what is at p before a member is extracted there (GNU
// tar's default), or with -k refuses.
func (t *tarrer) replace(p, shown string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return true
	}
	if t.keepOld {
		t.errorf("%s: Cannot open: File exists", shown)
		return false
	}
	if fi.IsDir() {
		if err := os.Remove(p); err != nil {
			t.errorf("%s: Cannot open: %s", shown, proc.ErrorText(errIsDir))
			return false
		}
		return true
	}
	_ = os.Remove(p)
	return true
}

// finishExtract creates the delayed links and sets directory modes and
// times, which extracting their contents would have changed.
func (t *tarrer) finishExtract() {
	for _, d := range t.delayed {
		fi, err := os.Lstat(d.path)
		if err != nil || !os.SameFile(fi, d.placeholder) || fi.Size() != 0 {
			continue
		}
		_ = os.Remove(d.path)
		if err := os.Symlink(d.target, d.path); err != nil {
			t.errorf("%s: Cannot create symlink to %s: %s", d.name, q(d.target), proc.ErrorText(err))
		}
	}
	for i := len(t.dirTimes) - 1; i >= 0; i-- {
		d := t.dirTimes[i]
		_ = os.Chmod(d.path, d.mode)
		if !t.noMtime {
			_ = os.Chtimes(d.path, d.t, d.t)
		}
	}
	t.delayed, t.dirTimes = nil, nil
}
