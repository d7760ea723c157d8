package runtime

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	sys "github.com/tetratelabs/wazero/experimental/sys"
	wazerosys "github.com/tetratelabs/wazero/sys"
)

// Audit operation names passed to the audit hook of [newRootFS]. Paths are
// relative to the mount, as the guest named them.
const (
	auditOpen      = "open"       // OpenFile for reading only
	auditOpenWrite = "open_write" // OpenFile asking for write access, O_CREAT or O_TRUNC
	auditMkdir     = "mkdir"
	auditChmod     = "chmod"
	auditRename    = "rename" // path is "from -> to"
	auditRmdir     = "rmdir"
	auditUnlink    = "unlink"
	auditLink      = "link"    // path is "old -> new"; always refused
	auditSymlink   = "symlink" // path is "target -> link"; always refused
	auditUtimens   = "utimens"
	auditFutimens  = "futimens" // File.Utimens on an open file
)

// A rootFS is a wazero experimental/sys.FS backed by an [os.Root], so no
// guest path can resolve outside the mounted directory: not with "..", not
// with an absolute path and not through a symlink, wherever it points.
// os.Root does the confinement; rootFS maps its results to errnos and adds
// policy on top:
//
//   - an escape (and any other refusal from os.Root that is not an OS
//     error) is EPERM;
//   - creating a symlink is EPERM and a hard link ENOSYS, so a guest cannot
//     plant links that confuse tools walking the directory later;
//   - Readlink of a link whose target lies outside the mount is EPERM, so
//     host paths do not leak;
//   - permission bits are masked to 0o777 (no setuid, setgid or sticky);
//   - when read-only, every mutation is EROFS.
//
// A rootFS is safe for concurrent use; the files it opens are not.
type rootFS struct {
	// UnimplementedFS keeps rootFS compiling if wazero adds methods to
	// sys.FS. Every method of the current interface is implemented below.
	sys.UnimplementedFS

	root     *os.Root
	writable bool
	audit    func(op, path string, errno sys.Errno)
}

var _ sys.FS = (*rootFS)(nil)

// newRootFS opens dir as a sys.FS confined by os.Root. When writable is
// false every mutating call fails with sys.EROFS (reads work).
//
// audit, if non-nil, is called for every open and mutation with the
// operation (one of the audit* constants), the path relative to the mount
// and the resulting errno (zero on success), so the caller can record
// capability use. It is called synchronously on the guest's call path, so it
// must be cheap, must not call back into the FS, and must be safe for
// concurrent use if the FS is shared by several module instances.
func newRootFS(dir string, writable bool, audit func(op, path string, errno sys.Errno)) (*rootFS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &rootFS{root: root, writable: writable, audit: audit}, nil
}

// Close closes the os.Root. Files already opened stay usable until closed.
func (f *rootFS) Close() error { return f.root.Close() }

// String implements fmt.Stringer.
func (f *rootFS) String() string { return f.root.Name() }

func (f *rootFS) record(op, p string, errno sys.Errno) {
	if f.audit != nil {
		f.audit(op, p, errno)
	}
}

// OpenFile implements sys.FS.OpenFile.
//
// O_DIRECTORY and O_NOFOLLOW are emulated, because os.Root always opens the
// final path element with O_NOFOLLOW and follows symlinks itself, and
// syscall.O_DIRECTORY is not portable. O_NONBLOCK is ignored (regular files
// and directories never block), O_DSYNC and O_RSYNC become O_SYNC.
func (f *rootFS) OpenFile(p string, flag sys.Oflag, perm fs.FileMode) (sys.File, sys.Errno) {
	p = cleanPath(p)
	op := auditOpen
	if oflagMutates(flag) {
		op = auditOpenWrite
	}
	file, errno := f.openFile(p, flag, perm)
	f.record(op, p, errno)
	if errno != 0 {
		return nil, errno // not a typed nil in the interface
	}
	return file, 0
}

func (f *rootFS) openFile(p string, flag sys.Oflag, perm fs.FileMode) (*rootFile, sys.Errno) {
	mutates := oflagMutates(flag)
	if mutates && !f.writable {
		return nil, sys.EROFS
	}
	if flag&sys.O_DIRECTORY != 0 {
		if flag&sys.O_CREAT != 0 {
			return nil, sys.EINVAL // mkdir is the way to create a directory
		}
		if mutates {
			// Never open for writing (O_TRUNC would truncate a file before
			// we could check its type): report what open(2) would.
			fi, err := f.root.Stat(p)
			switch {
			case err != nil:
				return nil, pathErrno(err)
			case fi.IsDir():
				return nil, sys.EISDIR
			default:
				return nil, sys.ENOTDIR
			}
		}
	}

	var before fs.FileInfo // what O_NOFOLLOW checked, to detect a swap
	if flag&sys.O_NOFOLLOW != 0 {
		fi, err := f.root.Lstat(p)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return nil, sys.ELOOP // as open(2) with O_NOFOLLOW
		case err == nil:
			before = fi
		case !errors.Is(err, fs.ErrNotExist):
			return nil, pathErrno(err)
		}
	}

	of, err := f.root.OpenFile(p, toOSFlag(flag), perm&fs.ModePerm)
	if err != nil {
		return nil, pathErrno(err)
	}
	fi, err := of.Stat()
	if err != nil {
		_ = of.Close()
		return nil, sys.UnwrapOSError(err)
	}
	if before != nil && !os.SameFile(before, fi) {
		_ = of.Close()
		return nil, sys.ELOOP // replaced by a symlink between Lstat and open
	}
	if flag&sys.O_DIRECTORY != 0 && !fi.IsDir() {
		_ = of.Close()
		return nil, sys.ENOTDIR
	}
	return newRootFile(f, p, flag, perm&fs.ModePerm, of, fi), 0
}

// oflagMutates reports whether opening with flag could change the file
// system: write access, O_CREAT or O_TRUNC. O_APPEND alone only affects
// writes, which need write access anyway.
func oflagMutates(flag sys.Oflag) bool {
	return flag&(sys.O_RDWR|sys.O_WRONLY|sys.O_CREAT|sys.O_TRUNC) != 0
}

// toOSFlag maps the portable subset of flag to os.OpenFile flags.
// O_DIRECTORY and O_NOFOLLOW are handled by the caller.
func toOSFlag(flag sys.Oflag) int {
	var of int
	switch flag & (sys.O_RDONLY | sys.O_RDWR | sys.O_WRONLY) {
	case sys.O_RDWR:
		of = os.O_RDWR
	case sys.O_WRONLY:
		of = os.O_WRONLY
	default:
		of = os.O_RDONLY
	}
	if flag&sys.O_APPEND != 0 {
		of |= os.O_APPEND
	}
	if flag&sys.O_CREAT != 0 {
		of |= os.O_CREATE
	}
	if flag&sys.O_EXCL != 0 {
		of |= os.O_EXCL
	}
	if flag&sys.O_TRUNC != 0 {
		of |= os.O_TRUNC
	}
	if flag&(sys.O_SYNC|sys.O_DSYNC|sys.O_RSYNC) != 0 {
		of |= os.O_SYNC
	}
	return of
}

// Lstat implements sys.FS.Lstat.
func (f *rootFS) Lstat(p string) (wazerosys.Stat_t, sys.Errno) {
	fi, err := f.root.Lstat(cleanPath(p))
	if err != nil {
		return wazerosys.Stat_t{}, pathErrno(err)
	}
	return wazerosys.NewStat_t(fi), 0
}

// Stat implements sys.FS.Stat.
func (f *rootFS) Stat(p string) (wazerosys.Stat_t, sys.Errno) {
	fi, err := f.root.Stat(cleanPath(p))
	if err != nil {
		return wazerosys.Stat_t{}, pathErrno(err)
	}
	return wazerosys.NewStat_t(fi), 0
}

// Mkdir implements sys.FS.Mkdir.
func (f *rootFS) Mkdir(p string, perm fs.FileMode) sys.Errno {
	p = cleanPath(p)
	errno := sys.EROFS
	if f.writable {
		errno = pathErrno(f.root.Mkdir(p, perm&fs.ModePerm))
	}
	f.record(auditMkdir, p, errno)
	return errno
}

// Chmod implements sys.FS.Chmod. Only the permission bits are applied.
func (f *rootFS) Chmod(p string, perm fs.FileMode) sys.Errno {
	p = cleanPath(p)
	errno := sys.EROFS
	if f.writable {
		errno = pathErrno(f.root.Chmod(p, perm&fs.ModePerm))
	}
	f.record(auditChmod, p, errno)
	return errno
}

// Rename implements sys.FS.Rename with POSIX semantics: a file cannot replace
// a directory (EISDIR) and a directory can replace only an empty directory
// (ENOTEMPTY otherwise). os.Root refuses to replace any directory, so the
// empty-directory case removes the target first; that is not atomic.
func (f *rootFS) Rename(from, to string) sys.Errno {
	from, to = cleanPath(from), cleanPath(to)
	errno := sys.EROFS
	if f.writable {
		errno = f.rename(from, to)
	}
	f.record(auditRename, from+" -> "+to, errno)
	return errno
}

func (f *rootFS) rename(from, to string) sys.Errno {
	if from == to {
		_, err := f.root.Lstat(from)
		return pathErrno(err)
	}
	err := f.root.Rename(from, to)
	if err == nil {
		return 0
	}
	errno := pathErrno(err)
	if errno != sys.EEXIST {
		return errno
	}
	// os.Root says EEXIST when the target is a directory.
	toInfo, terr := f.root.Lstat(to)
	fromInfo, ferr := f.root.Lstat(from)
	if terr != nil || ferr != nil || !toInfo.IsDir() {
		return errno
	}
	if !fromInfo.IsDir() {
		return sys.EISDIR
	}
	if errno = pathErrno(f.root.Remove(to)); errno != 0 {
		return errno // ENOTEMPTY when the target has entries
	}
	return pathErrno(f.root.Rename(from, to))
}

// Rmdir implements sys.FS.Rmdir.
func (f *rootFS) Rmdir(p string) sys.Errno {
	p = cleanPath(p)
	errno := sys.EROFS
	if f.writable {
		errno = f.remove(p, true)
	}
	f.record(auditRmdir, p, errno)
	return errno
}

// Unlink implements sys.FS.Unlink. A symlink is removed, never its target.
func (f *rootFS) Unlink(p string) sys.Errno {
	p = cleanPath(p)
	errno := sys.EROFS
	if f.writable {
		errno = f.remove(p, false)
	}
	f.record(auditUnlink, p, errno)
	return errno
}

// remove checks the type before calling os.Root.Remove, which removes files
// and empty directories alike.
func (f *rootFS) remove(p string, dir bool) sys.Errno {
	fi, err := f.root.Lstat(p)
	switch {
	case err != nil:
		return pathErrno(err)
	case dir && !fi.IsDir():
		return sys.ENOTDIR
	case !dir && fi.IsDir():
		return sys.EISDIR
	}
	return pathErrno(f.root.Remove(p))
}

// Link implements sys.FS.Link. Hard links are not supported (ENOSYS), or
// EROFS when read-only.
func (f *rootFS) Link(oldPath, newPath string) sys.Errno {
	errno := sys.ENOSYS
	if !f.writable {
		errno = sys.EROFS
	}
	f.record(auditLink, cleanPath(oldPath)+" -> "+cleanPath(newPath), errno)
	return errno
}

// Symlink implements sys.FS.Symlink. Guests may not create symlinks (EPERM),
// or EROFS when read-only: a planted link could redirect a host tool that
// later walks the directory without os.Root.
func (f *rootFS) Symlink(oldPath, linkName string) sys.Errno {
	errno := sys.EPERM
	if !f.writable {
		errno = sys.EROFS
	}
	f.record(auditSymlink, oldPath+" -> "+cleanPath(linkName), errno)
	return errno
}

// Readlink implements sys.FS.Readlink. A link whose target is absolute or
// climbs out of the mount (judged lexically from the link's directory) is
// EPERM: following it would fail anyway, and its text would leak a host path.
func (f *rootFS) Readlink(p string) (string, sys.Errno) {
	p = cleanPath(p)
	target, err := f.root.Readlink(p)
	if err != nil {
		return "", pathErrno(err)
	}
	target = filepath.ToSlash(target)
	if path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
		return "", sys.EPERM
	}
	if j := path.Join(path.Dir(p), target); j == ".." || strings.HasPrefix(j, "../") {
		return "", sys.EPERM
	}
	return target, 0
}

// Utimens implements sys.FS.Utimens. Symlinks are followed (inside the mount).
func (f *rootFS) Utimens(p string, atim, mtim int64) sys.Errno {
	p = cleanPath(p)
	errno := sys.EROFS
	if f.writable {
		errno = pathErrno(f.root.Chtimes(p, toTime(atim), toTime(mtim)))
	}
	f.record(auditUtimens, p, errno)
	return errno
}

// toTime converts epoch nanoseconds to a time; UTIME_OMIT becomes the zero
// time, which os.Chtimes (and os.Root.Chtimes) leave unchanged.
func toTime(nanos int64) time.Time {
	if nanos == sys.UTIME_OMIT {
		return time.Time{}
	}
	return time.Unix(0, nanos)
}

// cleanPath normalises a mount-relative path from wazero: the root may come
// as "" or ".". Everything else is left to os.Root, which rejects absolute
// paths and escapes and gives a trailing slash its POSIX meaning.
func cleanPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// pathErrno maps an error from an os.Root method to an errno. OS errors map
// as wazero maps them. Anything else os.Root returns is a refusal, notably
// "path escapes from parent" for "..", absolute paths and symlinks leading
// outside, and becomes EPERM, never EIO, so the guest sees a denial.
func pathErrno(err error) sys.Errno {
	if err == nil {
		return 0
	}
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		return sys.UnwrapOSError(errno)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sys.ENOENT
	case errors.Is(err, fs.ErrExist):
		return sys.EEXIST
	case errors.Is(err, fs.ErrClosed):
		return sys.EBADF
	case errors.Is(err, fs.ErrInvalid):
		return sys.EINVAL
	}
	return sys.EPERM
}
