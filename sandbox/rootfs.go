package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	sys "github.com/tetratelabs/wazero/experimental/sys"
	wazerosys "github.com/tetratelabs/wazero/sys"

	"github.com/skillrun/skillrun/internal/fsguard"
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
	auditWrite     = "write"    // a write refused by the mount's limit (Mount.MaxBytes)
	// Lookups are audited only when refused (EPERM, EACCES, EROFS: an
	// escape, a link leading out), not when the file is missing.
	auditStat     = "stat"
	auditLstat    = "lstat"
	auditReadlink = "readlink"
)

// An auditFunc records one file operation of a [rootFS]: the operation
// (one of the audit* constants), the path relative to the mount, the
// resulting errno (zero on success) and, for some refusals, why in words
// ("" means the errno says it).
type auditFunc func(op, path string, errno sys.Errno, reason string)

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
//   - when read-only, every mutation is EROFS;
//   - opening a FIFO, socket or device is EACCES, checked on what was
//     opened, and the open never blocks (see [fsguard.OpenFile]);
//   - a change in or to a protected folder (a skill folder, the
//     interpreters, the compile cache) is EROFS, by the folder's identity
//     (see [fsguard.Guard]), even when the mount is writable.
//
// A rootFS is safe for concurrent use; the files it opens are not.
type rootFS struct {
	// UnimplementedFS keeps rootFS compiling if wazero adds methods to
	// sys.FS. Every method of the current interface is implemented below.
	sys.UnimplementedFS

	root     *os.Root
	writable bool
	guard    *fsguard.Guard // nil: no protected folder in the mount
	audit    auditFunc
	quota    *Quota // nil: writes unbounded (Mount.MaxBytes, Mount.Quota)
}

var _ sys.FS = (*rootFS)(nil)

// newRootFS makes root a sys.FS, and closes root when it is closed. When
// writable is false every mutating call fails with sys.EROFS (reads work);
// guard (nil for none) refuses changes to protected folders.
//
// audit, if non-nil, is called for every open and mutation, and for every
// refused lookup, so the caller can record capability use. It is called
// synchronously on the guest's call path, so it must be cheap, must not
// call back into the FS, and must be safe for concurrent use if the FS is
// shared by several module instances.
func newRootFS(root *os.Root, writable bool, guard *fsguard.Guard, audit auditFunc) *rootFS {
	return &rootFS{root: root, writable: writable, guard: guard, audit: audit}
}

// Close closes the os.Root. Files already opened stay usable until closed.
func (f *rootFS) Close() error { return f.root.Close() }

// String implements fmt.Stringer.
func (f *rootFS) String() string { return f.root.Name() }

func (f *rootFS) record(op, p string, errno sys.Errno) { f.recordWhy(op, p, errno, "") }

func (f *rootFS) recordWhy(op, p string, errno sys.Errno, reason string) {
	if f.audit != nil {
		f.audit(op, p, errno, reason)
	}
}

// recordDenied records a lookup only if it was refused.
func (f *rootFS) recordDenied(op, p string, errno sys.Errno) {
	if isDenial(errno) {
		f.record(op, p, errno)
	}
}

// isDenial reports whether errno is a refusal by the sandbox or the host
// rather than an answer about the file (ENOENT, ENOTDIR, EEXIST, ...).
func isDenial(errno sys.Errno) bool {
	return errno == sys.EPERM || errno == sys.EACCES || errno == sys.EROFS
}

// Reasons given to the audit for refusals an errno does not explain.
const (
	reasonProtected = "protected folder %s: skill, interpreter and compile-cache folders are never writable"
	reasonSpecial   = "not a regular file or folder: FIFOs, sockets and devices are refused"
)

// guarded checks a change to p against the guard and returns the path to
// make it through (see [fsguard.Guard.Check]), or the errno and the reason
// of a refusal. follow says whether the change follows a symlink in the
// last element.
func (f *rootFS) guarded(p string, follow bool) (string, sys.Errno, string) {
	if f.guard == nil {
		return p, 0, ""
	}
	canon, err := f.guard.Check(f.root, p, follow)
	if pe, ok := errors.AsType[*fsguard.ProtectedError](err); ok {
		return "", sys.EROFS, fmt.Sprintf(reasonProtected, pe.Dir)
	}
	if err != nil {
		return "", pathErrno(err), ""
	}
	return canon, 0, ""
}

// OpenFile implements sys.FS.OpenFile.
//
// O_DIRECTORY and O_NOFOLLOW are emulated, because os.Root always opens the
// final path element with O_NOFOLLOW and follows symlinks itself, and
// syscall.O_DIRECTORY is not portable. O_NONBLOCK is ignored (regular files
// and directories never block), O_DSYNC and O_RSYNC become O_SYNC.
func (f *rootFS) OpenFile(p string, flag sys.Oflag, perm fs.FileMode) (sys.File, sys.Errno) {
	p = cleanPath(p)
	if flag&sys.O_CREAT != 0 {
		perm = createFileMode
	}
	op := auditOpen
	if oflagMutates(flag) {
		op = auditOpenWrite
	}
	file, errno, reason := f.openFile(p, flag, perm)
	f.recordWhy(op, p, errno, reason)
	if errno != 0 {
		return nil, errno // not a typed nil in the interface
	}
	return file, 0
}

// testHookOpen, if set, runs in openFile between its checks and the open,
// so that a test can swap the file in between.
var testHookOpen func(p string)

func (f *rootFS) openFile(p string, flag sys.Oflag, perm fs.FileMode) (*rootFile, sys.Errno, string) {
	mutates := oflagMutates(flag)
	if mutates && !f.writable {
		return nil, sys.EROFS, ""
	}
	if flag&sys.O_DIRECTORY != 0 {
		if flag&sys.O_CREAT != 0 {
			return nil, sys.EINVAL, "" // mkdir is the way to create a directory
		}
		if mutates {
			// Never open for writing (O_TRUNC would truncate a file before
			// we could check its type): report what open(2) would.
			fi, err := f.root.Stat(p)
			switch {
			case err != nil:
				return nil, pathErrno(err), ""
			case fi.IsDir():
				return nil, sys.EISDIR, ""
			default:
				return nil, sys.ENOTDIR, ""
			}
		}
	}
	at := p // the path to open: p, or p resolved by the guard
	if mutates {
		canon, errno, reason := f.guarded(p, flag&(sys.O_NOFOLLOW|sys.O_EXCL) == 0)
		if errno != 0 {
			return nil, errno, reason
		}
		at = canon
	}

	var before fs.FileInfo // what O_NOFOLLOW checked, to detect a swap
	if flag&sys.O_NOFOLLOW != 0 {
		fi, err := f.root.Lstat(at)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return nil, sys.ELOOP, "" // as open(2) with O_NOFOLLOW
		case err == nil:
			before = fi
		case !errors.Is(err, fs.ErrNotExist):
			return nil, pathErrno(err), ""
		}
	}
	if testHookOpen != nil {
		testHookOpen(at)
	}

	// A SKILL.md this run creates makes a skill folder of its own, which
	// its guard then lets it fill (fsguard.Guard.Created).
	newSkillFile := false
	if flag&sys.O_CREAT != 0 && f.guard != nil && fsguard.IsSkillFile(at) {
		_, err := f.root.Lstat(at)
		newSkillFile = errors.Is(err, fs.ErrNotExist)
	}
	var of *os.File
	var err error
	if newSkillFile {
		// Create it exclusively, so it is surely this run's: if someone
		// else made it in between, open it as asked, unmarked.
		of, err = fsguard.OpenFile(f.root, at, toOSFlag(flag|sys.O_EXCL), perm&fs.ModePerm)
		if err == nil {
			f.guard.Created(f.root, at)
		} else if errors.Is(err, fs.ErrExist) && flag&sys.O_EXCL == 0 {
			of, err = fsguard.OpenFile(f.root, at, toOSFlag(flag), perm&fs.ModePerm)
		}
	} else {
		of, err = fsguard.OpenFile(f.root, at, toOSFlag(flag), perm&fs.ModePerm)
	}
	if errors.Is(err, fsguard.ErrSpecial) || errors.Is(err, syscall.ENXIO) {
		// ENXIO: a FIFO opened for writing with no reader, or a socket.
		return nil, sys.EACCES, reasonSpecial
	}
	if err != nil {
		return nil, pathErrno(err), ""
	}
	fi, err := of.Stat()
	if err != nil {
		_ = of.Close()
		return nil, sys.UnwrapOSError(err), ""
	}
	if before != nil && !os.SameFile(before, fi) {
		_ = of.Close()
		return nil, sys.ELOOP, "" // replaced by a symlink between Lstat and open
	}
	if flag&sys.O_DIRECTORY != 0 && !fi.IsDir() {
		_ = of.Close()
		return nil, sys.ENOTDIR, ""
	}
	return newRootFile(f, at, flag, perm&fs.ModePerm, of, fi), 0, ""
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

// Lstat implements sys.FS.Lstat. A refusal (an escape) is audited.
func (f *rootFS) Lstat(p string) (wazerosys.Stat_t, sys.Errno) {
	p = cleanPath(p)
	fi, err := f.root.Lstat(p)
	if err != nil {
		errno := pathErrno(err)
		f.recordDenied(auditLstat, p, errno)
		return wazerosys.Stat_t{}, errno
	}
	return wazerosys.NewStat_t(fi), 0
}

// Stat implements sys.FS.Stat. A refusal (a link leading out) is audited.
func (f *rootFS) Stat(p string) (wazerosys.Stat_t, sys.Errno) {
	p = cleanPath(p)
	fi, err := f.root.Stat(p)
	if err != nil {
		errno := pathErrno(err)
		f.recordDenied(auditStat, p, errno)
		return wazerosys.Stat_t{}, errno
	}
	return wazerosys.NewStat_t(fi), 0
}

// change makes one audited change to p: EROFS on a read-only mount,
// the guard's refusal for a protected folder, else do's errno. do gets
// the path to change (p resolved by the guard, if there is one).
func (f *rootFS) change(op, p string, follow bool, do func(at string) sys.Errno) sys.Errno {
	if !f.writable {
		f.record(op, p, sys.EROFS)
		return sys.EROFS
	}
	at, errno, reason := f.guarded(p, follow)
	if errno == 0 {
		errno = do(at)
	}
	f.recordWhy(op, p, errno, reason)
	return errno
}

// Mkdir implements sys.FS.Mkdir. The folder gets createDirMode.
func (f *rootFS) Mkdir(p string, _ fs.FileMode) sys.Errno {
	return f.change(auditMkdir, cleanPath(p), false, func(at string) sys.Errno {
		return pathErrno(f.root.Mkdir(at, createDirMode))
	})
}

// createFileMode and createDirMode are the modes a guest creates files
// and folders with. WASI preview 1 has no mode in path_open or
// path_create_directory, and wazero passes 0o600 and 0o700, so a script's
// output would be readable by its owner only. A native run creates with
// 0666 and 0777 less the umask, and so does this: the host's umask
// applies (usually 022: 0644 and 0755).
const (
	createFileMode fs.FileMode = 0o666
	createDirMode  fs.FileMode = 0o777
)

// Chmod implements sys.FS.Chmod. Only the permission bits are applied.
func (f *rootFS) Chmod(p string, perm fs.FileMode) sys.Errno {
	return f.change(auditChmod, cleanPath(p), true, func(at string) sys.Errno {
		return pathErrno(f.root.Chmod(at, perm&fs.ModePerm))
	})
}

// Rename implements sys.FS.Rename with POSIX semantics: a file cannot replace
// a directory (EISDIR) and a directory can replace only an empty directory
// (ENOTEMPTY otherwise). os.Root refuses to replace any directory, so the
// empty-directory case removes the target first; that is not atomic.
func (f *rootFS) Rename(from, to string) sys.Errno {
	from, to = cleanPath(from), cleanPath(to)
	var reason string
	errno := sys.EROFS
	if f.writable {
		var cfrom, cto string
		cfrom, errno, reason = f.guarded(from, false)
		if errno == 0 {
			cto, errno, reason = f.guarded(to, false)
		}
		if errno == 0 {
			errno = f.rename(cfrom, cto)
		}
	}
	f.recordWhy(auditRename, from+" -> "+to, errno, reason)
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
	return f.change(auditRmdir, cleanPath(p), false, func(at string) sys.Errno { return f.remove(at, true) })
}

// Unlink implements sys.FS.Unlink. A symlink is removed, never its target.
func (f *rootFS) Unlink(p string) sys.Errno {
	return f.change(auditUnlink, cleanPath(p), false, func(at string) sys.Errno { return f.remove(at, false) })
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
//
// A refusal is audited.
func (f *rootFS) Readlink(p string) (string, sys.Errno) {
	p = cleanPath(p)
	target, errno := f.readlink(p)
	f.recordDenied(auditReadlink, p, errno)
	return target, errno
}

func (f *rootFS) readlink(p string) (string, sys.Errno) {
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
	return f.change(auditUtimens, cleanPath(p), true, func(at string) sys.Errno {
		return pathErrno(f.root.Chtimes(at, toTime(atim), toTime(mtim)))
	})
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
