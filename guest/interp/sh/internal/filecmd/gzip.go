package filecmd

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// gzipper is gzip, gunzip and zcat. The compressed bytes differ from GNU
// gzip's (Go's deflate is a different implementation) but are valid
// gzip with the same header fields: name, modification time, Unix OS.
type gzipper struct {
	e                         *proc.Env
	decompress, stdout, force bool
	keep, test, list, verbose bool
	quiet, noName             bool
	level                     int
	suffix                    string
	status                    int
}

func gzipCmd(e *proc.Env, args []string) int {
	opts, files, st, ok := parseArgs(e, "gzip", 1, proc.Getopt{Spec: "a,ascii c,stdout,to-stdout d,decompress,uncompress f,force h k,keep l,list L,license n,no-name N,name q,quiet r,recursive ,rsyncable S,suffix: ,synchronous t,test v,verbose V 1,fast 2 3 4 5 6 7 8 9,best"}, args[1:])
	if !ok {
		return st
	}
	g := &gzipper{e: e, level: 6, suffix: ".gz"}
	switch args[0] {
	case "gunzip":
		g.decompress = true
	case "zcat":
		g.decompress, g.stdout = true, true
	}
	for _, o := range opts {
		switch k := o.Key; k {
		case "c":
			g.stdout = true
		case "d":
			g.decompress = true
		case "f":
			g.force = true
		case "k":
			g.keep = true
		case "l":
			g.list = true
		case "n":
			g.noName = true
		case "q":
			g.quiet = true
		case "S":
			g.suffix = o.Val
		case "t":
			g.test, g.decompress = true, true
		case "v":
			g.verbose = true
		case "r":
			e.Errorf("gzip", "-r is not supported in the sandbox; use find ... -exec gzip {} +")
			return 1
		default:
			if k[0] >= '1' && k[0] <= '9' {
				g.level = int(k[0] - '0')
			}
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	if g.list {
		fmt.Fprintln(e.Stdout, "         compressed        uncompressed  ratio uncompressed_name")
	}
	for _, f := range files {
		if e.Cancelled() {
			return 1
		}
		switch {
		case g.list:
			g.listFile(f)
		case g.decompress:
			g.decompressFile(f)
		default:
			g.compressFile(f)
		}
	}
	return g.status
}

// warn reports a problem that leaves gzip's exit status at 2 (unless an
// error already made it 1).
func (g *gzipper) warn(format string, a ...any) {
	if !g.quiet {
		g.e.Errorf("gzip", format, a...)
	}
	if g.status == 0 {
		g.status = 2
	}
}

func (g *gzipper) fail(format string, a ...any) {
	g.e.Errorf("gzip", format, a...)
	g.status = 1
}

func (g *gzipper) compressFile(name string) {
	if name == "-" {
		w, _ := gzip.NewWriterLevel(g.e.Stdout, g.level)
		w.OS = 3
		if _, err := io.Copy(w, g.e.Stdin); err != nil {
			g.fail("stdin: %s", proc.ErrorText(err))
			_ = w.Close()
			return
		}
		if err := w.Close(); err != nil {
			g.fail("stdout: %s", proc.ErrorText(err))
		}
		return
	}
	p := g.e.Path(name)
	fi, err := os.Stat(p)
	if err != nil {
		g.fail("%s: %s", name, proc.ErrorText(err))
		return
	}
	if fi.IsDir() {
		g.warn("%s is a directory -- ignored", name)
		return
	}
	if !g.stdout && strings.HasSuffix(name, g.suffix) {
		// A warning that leaves the exit status alone, unlike the others.
		if !g.quiet {
			g.e.Errorf("gzip", "%s already has %s suffix -- unchanged", name, g.suffix)
		}
		return
	}
	in, err := os.Open(p)
	if err != nil {
		g.fail("%s: %s", name, proc.ErrorText(err))
		return
	}
	defer in.Close()
	out, outName, ok := g.create(name, name+g.suffix, fi.Mode().Perm())
	if !ok {
		return
	}
	zw, _ := gzip.NewWriterLevel(out, g.level)
	zw.OS = 3
	if !g.noName {
		zw.Name, zw.ModTime = path.Base(name), fi.ModTime()
	}
	_, err = io.Copy(zw, in)
	if err == nil {
		err = zw.Close()
	}
	g.finish(out, outName, name, fi, err)
}

// create opens the output for name: standard output with -c or -t,
// else outName, refusing to overwrite it without -f.
func (g *gzipper) create(name, outName string, perm os.FileMode) (io.Writer, string, bool) {
	if g.test {
		return io.Discard, "", true
	}
	if g.stdout {
		return g.e.Stdout, "", true
	}
	op := g.e.Path(outName)
	if _, err := os.Lstat(op); err == nil {
		if !g.force {
			g.warn("%s already exists;\tnot overwritten", outName)
			return nil, "", false
		}
		_ = os.Remove(op)
	}
	f, err := os.OpenFile(op, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		g.fail("%s: %s", outName, proc.ErrorText(err))
		return nil, "", false
	}
	return f, outName, true
}

// finish closes a file output, copies the input's mode and time to it
// and removes the input (unless -k), or removes the output on error.
func (g *gzipper) finish(out io.Writer, outName, name string, fi os.FileInfo, err error) {
	f, isFile := out.(*os.File)
	if isFile {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		if isFile {
			_ = os.Remove(g.e.Path(outName))
		}
		return
	}
	if !isFile {
		return
	}
	op := g.e.Path(outName)
	_ = os.Chmod(op, fi.Mode().Perm())
	_ = os.Chtimes(op, fi.ModTime(), fi.ModTime())
	if g.verbose {
		ofi, _ := os.Stat(op)
		if ofi != nil {
			in, outSize := fi.Size(), ofi.Size()
			if g.decompress {
				in, outSize = outSize, in
			}
			ratio := 0.0
			if in > 0 {
				ratio = 100 * float64(in-outSize) / float64(in)
			}
			fmt.Fprintf(g.e.Stderr, "%s:\t%5.1f%% -- replaced with %s\n", name, ratio, outName)
		}
	}
	if !g.keep {
		_ = os.Remove(g.e.Path(name))
	}
}

// gzSuffixes are the suffixes gunzip recognises, with what replaces
// them.
var gzSuffixes = [][2]string{{".gz", ""}, {"-gz", ""}, {".z", ""}, {"-z", ""}, {"_z", ""}, {".Z", ""}, {".tgz", ".tar"}, {".taz", ".tar"}}

func (g *gzipper) decompressFile(name string) {
	if name == "-" {
		_ = g.gunzip(g.e.Stdout, bufio.NewReader(g.e.Stdin), "stdin")
		return
	}
	p := g.e.Path(name)
	fi, err := os.Stat(p)
	if err != nil && isNotExist(err) && !strings.HasSuffix(name, g.suffix) {
		if fi2, err2 := os.Stat(p + g.suffix); err2 == nil {
			name, p, fi, err = name+g.suffix, p+g.suffix, fi2, nil
		} else {
			name = name + g.suffix
		}
	}
	if err != nil {
		g.fail("%s: %s", name, proc.ErrorText(err))
		return
	}
	if fi.IsDir() {
		g.warn("%s is a directory -- ignored", name)
		return
	}
	outName := ""
	for _, s := range append([][2]string{{g.suffix, ""}}, gzSuffixes...) {
		if base, ok := strings.CutSuffix(name, s[0]); ok && base != "" && !strings.HasSuffix(base, "/") {
			outName = base + s[1]
			break
		}
	}
	if outName == "" && !g.stdout && !g.test {
		g.warn("%s: unknown suffix -- ignored", name)
		return
	}
	in, err := os.Open(p)
	if err != nil {
		g.fail("%s: %s", name, proc.ErrorText(err))
		return
	}
	defer in.Close()
	br := bufio.NewReader(in)
	if magic, _ := br.Peek(2); len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		g.notice("%s: not in gzip format", name)
		g.status = 1
		return
	}
	out, outName, ok := g.create(name, outName, fi.Mode().Perm())
	if !ok {
		return
	}
	err = g.gunzip(out, br, name)
	g.finish(out, outName, name, fi, err)
}

// gunzip copies the members of a gzip stream to w, reporting corrupt
// data and ignoring (with GNU's warning) trailing garbage.
func (g *gzipper) gunzip(w io.Writer, r *bufio.Reader, name string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		g.notice("%s: not in gzip format", name)
		g.status = 1
		return err
	}
	for {
		zr.Multistream(false)
		if _, err := io.Copy(w, zr); err != nil {
			msg := "invalid compressed data--format violated"
			if errors.Is(err, gzip.ErrChecksum) {
				msg = "invalid compressed data--crc error"
			} else if errors.Is(err, io.ErrUnexpectedEOF) {
				msg = "unexpected end of file"
			}
			g.fail("%s: %s", name, msg)
			return err
		}
		if _, err := r.Peek(1); errors.Is(err, io.EOF) {
			return nil
		}
		if err := zr.Reset(r); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if !g.quiet {
				g.notice("%s: decompression OK, trailing garbage ignored", name)
			}
			if g.status == 0 {
				g.status = 2
			}
			return nil
		}
	}
}

// listFile prints gzip -l's line for one file.
func (g *gzipper) listFile(name string) {
	data, err := os.ReadFile(g.e.Path(name))
	if err != nil {
		g.fail("%s: %s", name, proc.ErrorText(err))
		return
	}
	if len(data) < 18 || data[0] != 0x1f || data[1] != 0x8b {
		g.notice("%s: not in gzip format", name)
		g.status = 1
		return
	}
	size := int64(uint32(data[len(data)-4]) | uint32(data[len(data)-3])<<8 | uint32(data[len(data)-2])<<16 | uint32(data[len(data)-1])<<24)
	header := 10
	flags := data[3]
	if flags&4 != 0 && len(data) > 12 {
		header += 2 + int(data[10]) | int(data[11])<<8
	}
	for _, bit := range []byte{8, 16} {
		if flags&bit != 0 {
			for header < len(data) && data[header] != 0 {
				header++
			}
			header++
		}
	}
	deflated := int64(len(data) - header - 8)
	ratio := 0.0
	if size > 0 {
		ratio = 100 * float64(size-deflated) / float64(size)
	}
	outName := strings.TrimSuffix(name, g.suffix)
	fmt.Fprintf(g.e.Stdout, "%19d %19d %5.1f%% %s\n", len(data), size, ratio, outName)
}

// notice writes one of the messages GNU gzip starts with an empty line
// ("not in gzip format", "trailing garbage ignored").
func (g *gzipper) notice(format string, a ...any) {
	fmt.Fprintf(g.e.Stderr, "\ngzip: "+format+"\n", a...)
}
