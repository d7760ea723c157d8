package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/dop251/goja"
)

// Node's fs module over the WASI file system (which holds only the
// mounts the grant gives): the synchronous functions, their callback
// forms (the callback runs from the event loop) and fs.promises, with
// Node's errors (code, errno, syscall, path and message).

// errnos are Node's error codes with their (negative) errno numbers.
var errnos = map[string]int{
	"ENOENT": -2, "EACCES": -13, "EEXIST": -17, "EROFS": -30, "EIO": -5, "ENOTDIR": -20,
	"EISDIR": -21, "ENOTEMPTY": -39, "EXDEV": -18, "EPERM": -1, "EBADF": -9, "EINVAL": -22, "EMFILE": -24,
}

var errnoText = map[string]string{
	"ENOENT": "no such file or directory", "EACCES": "permission denied", "EEXIST": "file already exists",
	"EROFS": "read-only file system", "EIO": "i/o error", "ENOTDIR": "not a directory",
	"EISDIR": "illegal operation on a directory", "ENOTEMPTY": "directory not empty",
	"EXDEV": "cross-device link not permitted", "EPERM": "operation not permitted", "EBADF": "bad file descriptor",
	"EINVAL": "invalid argument", "EMFILE": "too many open files",
}

func errCode(err error) string {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno) && errno == syscall.ENOSYS:
		return "EXDEV" // a rename between two mounts (WASI hosts answer ENOSYS)
	case errors.Is(err, fs.ErrNotExist):
		return "ENOENT"
	case errors.Is(err, fs.ErrExist):
		return "EEXIST"
	case errors.Is(err, syscall.EROFS):
		return "EROFS"
	case errors.Is(err, syscall.ENOTDIR):
		return "ENOTDIR"
	case errors.Is(err, syscall.EISDIR):
		return "EISDIR"
	case errors.Is(err, syscall.ENOTEMPTY):
		return "ENOTEMPTY"
	case errors.Is(err, syscall.EPERM):
		return "EPERM"
	case errors.Is(err, fs.ErrPermission):
		return "EACCES"
	case errors.Is(err, syscall.EBADF):
		return "EBADF"
	case errors.Is(err, syscall.EINVAL):
		return "EINVAL"
	case strings.Contains(err.Error(), "read-only file system"):
		return "EROFS"
	}
	return "EIO"
}

// fsError throws Node's error for a failed fs call: "ENOENT: no such
// file or directory, open 'x'". A refusal of the sandbox (EACCES, EROFS,
// EPERM) says so.
func (in *interp) fsError(op, p string, err error) {
	code := errCode(err)
	msg := fmt.Sprintf("%s: %s, %s '%s'", code, errnoText[code], op, p)
	if code == "EACCES" || code == "EROFS" || code == "EPERM" {
		msg += " (the sandbox shows only the folders the grant mounts: /skill read-only and /workspace as granted)"
	}
	e := in.jsError(msg)
	set(e, "code", code)
	set(e, "errno", errnos[code])
	set(e, "syscall", op)
	set(e, "path", p)
	panic(e)
}

// pathArg is a path argument: a string, a Buffer or a file: URL.
func (in *interp) pathArg(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok {
		if h := o.Get("href"); h != nil && o.Get("protocol") != nil {
			if o.Get("protocol").String() != "file:" {
				panic(in.vm.NewTypeError("The URL must be of scheme file"))
			}
			u, _ := in.coreModule("url")
			f, _ := goja.AssertFunction(u.ToObject(in.vm).Get("fileURLToPath"))
			r, err := f(goja.Undefined(), v)
			if err != nil {
				panic(err)
			}
			return r.String()
		}
		if b, ok := o.Export().([]byte); ok {
			return string(b)
		}
	}
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		panic(in.vm.NewTypeError(`The "path" argument must be of type string or an instance of Buffer or URL. Received ` + in.format(v, false)))
	}
	return v.String()
}

// encodingOpt is the encoding of an options argument: a string, or an
// object's encoding.
func encodingOpt(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok {
		return optString(o.Get("encoding"))
	}
	s := optString(v)
	if s == "buffer" {
		return ""
	}
	return s
}

func boolOpt(v goja.Value, name string) bool {
	if o, ok := v.(*goja.Object); ok {
		if b := o.Get(name); b != nil {
			return b.ToBoolean()
		}
	}
	return false
}

func (in *interp) stdinText() string {
	s, _ := goja.AssertFunction(in.vm.Get("__stdin"))
	v, _ := s(goja.Undefined())
	return v.String()
}

func (in *interp) statObject(fi fs.FileInfo) *goja.Object {
	vm := in.vm
	s := vm.NewObject()
	ms := fi.ModTime().UnixMilli()
	date := func() goja.Value {
		d, _ := vm.New(vm.Get("Date"), vm.ToValue(ms))
		return d
	}
	mode := uint32(fi.Mode().Perm())
	switch {
	case fi.IsDir():
		mode |= syscall.S_IFDIR
	case fi.Mode()&fs.ModeSymlink != 0:
		mode |= syscall.S_IFLNK
	default:
		mode |= syscall.S_IFREG
	}
	ino, nlink := inode(fi)
	for k, v := range map[string]any{
		"size": fi.Size(), "mode": mode, "mtimeMs": ms, "atimeMs": ms, "ctimeMs": ms, "birthtimeMs": ms,
		"mtime": date(), "atime": date(), "ctime": date(), "birthtime": date(),
		"uid": 0, "gid": 0, "dev": 0, "ino": ino, "nlink": nlink, "blksize": 4096, "blocks": (fi.Size() + 511) / 512,
		"isFile":            func() bool { return fi.Mode().IsRegular() },
		"isDirectory":       fi.IsDir,
		"isSymbolicLink":    func() bool { return fi.Mode()&fs.ModeSymlink != 0 },
		"isFIFO":            func() bool { return false },
		"isSocket":          func() bool { return false },
		"isBlockDevice":     func() bool { return false },
		"isCharacterDevice": func() bool { return false },
	} {
		set(s, k, v)
	}
	return s
}

func (in *interp) dirent(dir string, e fs.DirEntry) *goja.Object {
	d := in.vm.NewObject()
	set(d, "name", e.Name())
	set(d, "path", dir)
	set(d, "parentPath", dir)
	set(d, "isFile", func() bool { return e.Type().IsRegular() })
	set(d, "isDirectory", e.IsDir)
	set(d, "isSymbolicLink", func() bool { return e.Type()&fs.ModeSymlink != 0 })
	return d
}

// fsFuncs are the synchronous functions, by their name without "Sync".
func (in *interp) fsFuncs() map[string]func(goja.FunctionCall) goja.Value {
	vm := in.vm
	und := goja.Undefined()
	write := func(flag int) func(c goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			target := c.Argument(0)
			if fd, ok := target.Export().(int64); ok && (fd == 1 || fd == 2) {
				in.writeFD(int(fd), in.bytesOf(c.Argument(1), encodingOpt(c.Argument(2))))
				return und
			}
			p := in.pathArg(target)
			data := in.bytesOf(c.Argument(1), encodingOpt(c.Argument(2)))
			fl := flag
			if o, ok := c.Argument(2).(*goja.Object); ok {
				if f := optString(o.Get("flag")); strings.HasPrefix(f, "a") {
					fl = os.O_APPEND
				} else if f == "wx" {
					fl = os.O_TRUNC | os.O_EXCL
				}
			}
			f, err := os.OpenFile(fsPath(p), os.O_WRONLY|os.O_CREATE|fl, 0o644)
			if err != nil {
				in.fsError("open", p, err)
			}
			if _, err := f.Write(data); err != nil {
				_ = f.Close()
				in.fsError("write", p, err)
			}
			if err := f.Close(); err != nil {
				in.fsError("close", p, err)
			}
			return und
		}
	}
	stat := func(lstat bool) func(c goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			st := os.Stat
			if lstat {
				st = os.Lstat
			}
			fi, err := st(fsPath(p))
			if err != nil {
				if o, ok := c.Argument(1).(*goja.Object); ok && o.Get("throwIfNoEntry") != nil && !o.Get("throwIfNoEntry").ToBoolean() && errors.Is(err, fs.ErrNotExist) {
					return und
				}
				in.fsError(map[bool]string{false: "stat", true: "lstat"}[lstat], p, err)
			}
			return in.statObject(fi)
		}
	}
	return map[string]func(goja.FunctionCall) goja.Value{
		"readFile": func(c goja.FunctionCall) goja.Value {
			enc := encodingOpt(c.Argument(1))
			target := c.Argument(0)
			var b []byte
			if fd, ok := target.Export().(int64); ok && fd == 0 {
				b = []byte(in.stdinText())
			} else if p := in.pathArg(target); p == "/dev/stdin" {
				b = []byte(in.stdinText())
			} else {
				var err error
				if b, err = os.ReadFile(fsPath(p)); err != nil {
					in.fsError("open", p, err)
				}
			}
			return in.encodeBytes(b, enc)
		},
		"writeFile":  write(os.O_TRUNC),
		"appendFile": write(os.O_APPEND),
		"readdir": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			types, recursive := boolOpt(c.Argument(1), "withFileTypes"), boolOpt(c.Argument(1), "recursive")
			var out []any
			var walk func(rel string)
			walk = func(rel string) {
				dir := path.Join(fsPath(p), rel)
				ents, err := os.ReadDir(dir)
				if err != nil {
					in.fsError("scandir", path.Join(p, rel), err)
				}
				sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
				for _, e := range ents {
					if types {
						out = append(out, in.dirent(dir, e))
					} else {
						out = append(out, path.Join(rel, e.Name()))
					}
					if recursive && e.IsDir() {
						walk(path.Join(rel, e.Name()))
					}
				}
			}
			walk("")
			if out == nil {
				out = []any{}
			}
			return vm.ToValue(out)
		},
		"mkdir": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			if boolOpt(c.Argument(1), "recursive") {
				first := ""
				for d := fsPath(p); d != "/" && d != "."; d = path.Dir(d) {
					if _, err := os.Stat(d); err == nil {
						break
					}
					first = d
				}
				if err := os.MkdirAll(fsPath(p), 0o755); err != nil {
					in.fsError("mkdir", p, err)
				}
				if first == "" {
					return und
				}
				return vm.ToValue(first)
			}
			if err := os.Mkdir(fsPath(p), 0o755); err != nil {
				in.fsError("mkdir", p, err)
			}
			return und
		},
		"mkdtemp": func(c goja.FunctionCall) goja.Value {
			prefix := in.pathArg(c.Argument(0))
			for range 100 {
				p := prefix + strings.ToUpper(in.randomUUID()[:6])
				if err := os.Mkdir(fsPath(p), 0o700); err == nil {
					return vm.ToValue(p)
				} else if !errors.Is(err, fs.ErrExist) {
					in.fsError("mkdtemp", prefix+"XXXXXX", err)
				}
			}
			in.fsError("mkdtemp", prefix+"XXXXXX", fs.ErrExist)
			return und
		},
		"stat":  stat(false),
		"lstat": stat(true),
		"access": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			if _, err := os.Stat(fsPath(p)); err != nil {
				in.fsError("access", p, err)
			}
			return und
		},
		"unlink": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			if fi, err := os.Lstat(fsPath(p)); err == nil && fi.IsDir() {
				in.fsError("unlink", p, syscall.EISDIR)
			}
			if err := os.Remove(fsPath(p)); err != nil {
				in.fsError("unlink", p, err)
			}
			return und
		},
		"rmdir": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			var err error
			if boolOpt(c.Argument(1), "recursive") {
				err = removeTree(fsPath(p))
			} else {
				err = os.Remove(fsPath(p))
			}
			if err != nil {
				in.fsError("rmdir", p, err)
			}
			return und
		},
		"rm": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			force, recursive := boolOpt(c.Argument(1), "force"), boolOpt(c.Argument(1), "recursive")
			fi, err := os.Lstat(fsPath(p))
			if err != nil {
				if force && errors.Is(err, fs.ErrNotExist) {
					return und
				}
				in.fsError("rm", p, err)
			}
			if fi.IsDir() && !recursive {
				e := in.jsError("Path is a directory: rm returned EISDIR (is a directory) " + p)
				set(e, "code", "ERR_FS_EISDIR")
				panic(e)
			}
			if err := removeTree(fsPath(p)); err != nil {
				in.fsError("rm", p, err)
			}
			return und
		},
		"rename": func(c goja.FunctionCall) goja.Value {
			from, to := in.pathArg(c.Argument(0)), in.pathArg(c.Argument(1))
			if err := os.Rename(fsPath(from), fsPath(to)); err != nil {
				in.fsError("rename", from+"' -> '"+to, err)
			}
			return und
		},
		"copyFile": func(c goja.FunctionCall) goja.Value {
			from, to := in.pathArg(c.Argument(0)), in.pathArg(c.Argument(1))
			excl := c.Argument(2).ToInteger()&1 != 0
			in.copyFile(from, to, excl)
			return und
		},
		"cp": func(c goja.FunctionCall) goja.Value {
			from, to := in.pathArg(c.Argument(0)), in.pathArg(c.Argument(1))
			in.copyTree(from, to, boolOpt(c.Argument(2), "recursive"))
			return und
		},
		"realpath": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			if _, err := os.Stat(fsPath(p)); err != nil {
				in.fsError("realpath", p, err)
			}
			return vm.ToValue(fsPath(p))
		},
		"readlink": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			t, err := os.Readlink(fsPath(p))
			if err != nil {
				in.fsError("readlink", p, err)
			}
			return vm.ToValue(t)
		},
		"truncate": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			if err := os.Truncate(fsPath(p), c.Argument(1).ToInteger()); err != nil {
				in.fsError("open", p, err)
			}
			return und
		},
		"chmod": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			if _, err := os.Stat(fsPath(p)); err != nil {
				in.fsError("chmod", p, err)
			}
			return und
		},
		"utimes": func(c goja.FunctionCall) goja.Value {
			p := in.pathArg(c.Argument(0))
			if _, err := os.Stat(fsPath(p)); err != nil {
				in.fsError("utime", p, err)
			}
			return und
		},
		"symlink": func(c goja.FunctionCall) goja.Value {
			in.fsError("symlink", in.pathArg(c.Argument(1)), syscall.EPERM)
			return und
		},
	}
}

// removeTree removes p and what it holds. os.RemoveAll, on wasip1,
// stops at the EPERM a WASI host answers for unlinking a directory.
func removeTree(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := removeTree(path.Join(p, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.Remove(p)
}

// writeFD writes to the process's stdout (1) or stderr (2), in order with
// console's output.
func (in *interp) writeFD(fd int, b []byte) {
	if fd == 2 {
		_ = in.stdout.Flush()
		_, _ = in.stderr.Write(b)
		return
	}
	_, _ = in.stdout.Write(b)
}

func (in *interp) copyFile(from, to string, excl bool) {
	src, err := os.Open(fsPath(from))
	if err != nil {
		in.fsError("copyfile", from+"' -> '"+to, err)
	}
	defer src.Close()
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if excl {
		flag |= os.O_EXCL
	}
	dst, err := os.OpenFile(fsPath(to), flag, 0o644)
	if err != nil {
		in.fsError("copyfile", from+"' -> '"+to, err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		_ = dst.Close()
		in.fsError("copyfile", from+"' -> '"+to, err)
	}
	if err := dst.Close(); err != nil {
		in.fsError("copyfile", from+"' -> '"+to, err)
	}
}

func (in *interp) copyTree(from, to string, recursive bool) {
	fi, err := os.Stat(fsPath(from))
	if err != nil {
		in.fsError("cp", from, err)
	}
	if !fi.IsDir() {
		in.copyFile(from, to, false)
		return
	}
	if !recursive {
		e := in.jsError("Recursive option is required to copy a directory: cp returned EISDIR (" + from + " is a directory (not copied)) " + from)
		set(e, "code", "ERR_FS_EISDIR")
		panic(e)
	}
	if err := os.MkdirAll(fsPath(to), 0o755); err != nil {
		in.fsError("mkdir", to, err)
	}
	ents, err := os.ReadDir(fsPath(from))
	if err != nil {
		in.fsError("scandir", from, err)
	}
	for _, e := range ents {
		in.copyTree(path.Join(from, e.Name()), path.Join(to, e.Name()), true)
	}
}

func (in *interp) fsModule() goja.Value {
	vm := in.vm
	o := vm.NewObject()
	promises := vm.NewObject()
	for name, fn := range in.fsFuncs() {
		f := fn
		set(o, name+"Sync", f)
		set(o, name, func(c goja.FunctionCall) goja.Value {
			n := len(c.Arguments)
			if n == 0 || !isFunc(c.Arguments[n-1]) {
				panic(vm.NewTypeError(`The "cb" argument must be of type function. Received ` + in.format(c.Argument(n-1), false)))
			}
			args := c.Arguments[:n-1]
			in.later(c.Arguments[n-1], func() goja.Value { return f(goja.FunctionCall{This: c.This, Arguments: args}) })
			return goja.Undefined()
		})
		set(promises, name, func(c goja.FunctionCall) goja.Value {
			p, resolve, reject := vm.NewPromise()
			func() {
				defer func() {
					if r := recover(); r != nil {
						if e, ok := r.(*goja.Object); ok {
							_ = reject(e)
							return
						}
						panic(r)
					}
				}()
				_ = resolve(f(c))
			}()
			return vm.ToValue(p)
		})
	}
	set(o, "existsSync", func(v goja.Value) bool {
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			return false
		}
		_, err := os.Stat(fsPath(in.pathArg(v)))
		return err == nil
	})
	set(o, "exists", func(v, cb goja.Value) {
		_, err := os.Stat(fsPath(in.pathArg(v)))
		fn, _ := goja.AssertFunction(cb)
		in.soon(func() { in.callback(fn, []goja.Value{vm.ToValue(err == nil)}) })
	})
	set(o, "writeSync", func(c goja.FunctionCall) goja.Value {
		fd := c.Argument(0).ToInteger()
		b := in.bytesOf(c.Argument(1), "")
		if fd != 1 && fd != 2 {
			in.fsError("write", fmt.Sprint(fd), syscall.EBADF)
		}
		in.writeFD(int(fd), b)
		return vm.ToValue(len(b))
	})
	set(o, "createWriteStream", func(c goja.FunctionCall) goja.Value { return in.writeStream(c) })
	set(o, "createReadStream", func(c goja.FunctionCall) goja.Value { return in.readStream(c) })
	set(o, "constants", map[string]int{"F_OK": 0, "R_OK": 4, "W_OK": 2, "X_OK": 1, "COPYFILE_EXCL": 1, "O_RDONLY": 0, "O_WRONLY": 1, "O_RDWR": 2})
	for _, k := range []string{"F_OK", "R_OK", "W_OK", "X_OK"} {
		set(o, k, o.Get("constants").ToObject(vm).Get(k))
	}
	set(o, "promises", promises)
	return o
}

// soon runs fn from the event loop, keeping the loop alive until it has.
func (in *interp) soon(fn func()) {
	if _, err := in.rawImmediate(goja.Undefined(), in.vm.ToValue(fn)); err != nil {
		panic(err)
	}
}

// writeStream is fs.createWriteStream: a stream.Writable over the file.
func (in *interp) writeStream(c goja.FunctionCall) goja.Value {
	vm := in.vm
	p := in.pathArg(c.Argument(0))
	flag := os.O_TRUNC
	if o, ok := c.Argument(1).(*goja.Object); ok && strings.HasPrefix(optString(o.Get("flags")), "a") {
		flag = os.O_APPEND
	}
	f, err := os.OpenFile(fsPath(p), os.O_WRONLY|os.O_CREATE|flag, 0o644)
	if err != nil {
		in.fsError("open", p, err)
	}
	stream, _ := in.coreModule("stream")
	w, err := vm.New(stream.ToObject(vm).Get("Writable"))
	if err != nil {
		panic(err)
	}
	set(w, "path", p)
	set(w, "_write", func(chunk, enc, cb goja.Value) {
		_, werr := f.Write(in.bytesOf(chunk, optString(enc)))
		fn, _ := goja.AssertFunction(cb)
		var arg goja.Value = goja.Undefined()
		if werr != nil {
			arg = in.jsError(werr.Error())
		}
		in.callback(fn, []goja.Value{arg})
	})
	set(w, "_final", func(cb goja.Value) {
		_ = f.Close()
		fn, _ := goja.AssertFunction(cb)
		in.soon(func() { in.callback(fn, nil) })
	})
	return w
}

// readStream is fs.createReadStream: a stream.Readable of the file's
// contents (in one chunk).
func (in *interp) readStream(c goja.FunctionCall) goja.Value {
	vm := in.vm
	p := in.pathArg(c.Argument(0))
	b, err := os.ReadFile(fsPath(p))
	if err != nil {
		in.fsError("open", p, err)
	}
	stream, _ := in.coreModule("stream")
	r, err := vm.New(stream.ToObject(vm).Get("Readable"))
	if err != nil {
		panic(err)
	}
	set(r, "path", p)
	enc := encodingOpt(c.Argument(1))
	set(r, "_read", func() {
		push, _ := goja.AssertFunction(r.Get("push"))
		if len(b) > 0 {
			_, _ = push(r, in.encodeBytes(b, enc))
		}
		_, _ = push(r, goja.Null())
		b = nil
	})
	return r
}
