package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	sys "github.com/tetratelabs/wazero/experimental/sys"
	wazerosys "github.com/tetratelabs/wazero/sys"

	"github.com/skillrun/skillrun/internal/fsguard"
)

// A rootFile is a sys.File opened by a [rootFS], wrapping an *os.File.
//
// Operations that os.File cannot do on a descriptor (toggling O_APPEND,
// rewinding a directory portably, setting times) reopen or act on the path
// the file was opened with, through the same os.Root, after checking it still
// names the same file; if it does not, they fail with ENOENT.
//
// A rootFile is not safe for concurrent use, like the files wazero opens.
type rootFile struct {
	// UnimplementedFile keeps rootFile compiling if wazero adds methods to
	// sys.File. Every method of the current interface is implemented below.
	sys.UnimplementedFile

	fs   *rootFS
	path string    // mount-relative, as opened
	flag sys.Oflag // as opened, with O_APPEND tracking SetAppend
	perm fs.FileMode
	file *os.File

	// dev, ino and isDir cannot change while the file is open.
	dev   uint64
	ino   wazerosys.Inode
	isDir bool

	// rewindDir is set by Seek(0, io.SeekStart) on a directory: the next
	// Readdir reopens it, so entries added since the open are listed.
	rewindDir bool
	closed    bool
}

var _ sys.File = (*rootFile)(nil)

func newRootFile(fsys *rootFS, p string, flag sys.Oflag, perm fs.FileMode, f *os.File, fi fs.FileInfo) *rootFile {
	st := wazerosys.NewStat_t(fi) // Dev and Ino are zero where the OS gives none
	return &rootFile{
		fs: fsys, path: p, flag: flag, perm: perm, file: f,
		dev: st.Dev, ino: st.Ino, isDir: fi.IsDir(),
	}
}

// writable reports whether the descriptor was opened for writing.
func (f *rootFile) writable() bool { return f.flag&(sys.O_RDWR|sys.O_WRONLY) != 0 }

// Dev implements sys.File.Dev.
func (f *rootFile) Dev() (uint64, sys.Errno) { return f.dev, 0 }

// Ino implements sys.File.Ino.
func (f *rootFile) Ino() (wazerosys.Inode, sys.Errno) { return f.ino, 0 }

// IsDir implements sys.File.IsDir.
func (f *rootFile) IsDir() (bool, sys.Errno) { return f.isDir, 0 }

// IsAppend implements sys.File.IsAppend.
func (f *rootFile) IsAppend() bool { return f.flag&sys.O_APPEND != 0 }

// SetAppend implements sys.File.SetAppend. os.File fixes append mode at
// open, so this reopens the file with the new flag at the same offset.
func (f *rootFile) SetAppend(enable bool) sys.Errno {
	if errno := f.check(); errno != 0 {
		return errno
	}
	if f.isDir {
		return sys.EISDIR
	}
	if enable == f.IsAppend() {
		return 0
	}
	flag := f.flag &^ sys.O_APPEND
	if enable {
		flag |= sys.O_APPEND
	}
	if errno := f.reopen(flag); errno != 0 {
		return errno
	}
	f.flag = flag
	return 0
}

// Stat implements sys.File.Stat.
func (f *rootFile) Stat() (wazerosys.Stat_t, sys.Errno) {
	if f.closed {
		return wazerosys.Stat_t{}, sys.EBADF
	}
	fi, err := f.file.Stat()
	if err != nil {
		return wazerosys.Stat_t{}, sys.UnwrapOSError(err)
	}
	return wazerosys.NewStat_t(fi), 0
}

// Read implements sys.File.Read.
func (f *rootFile) Read(buf []byte) (int, sys.Errno) {
	if errno := f.check(); errno != 0 {
		return 0, errno
	}
	if f.isDir {
		return 0, sys.EISDIR
	}
	if len(buf) == 0 {
		return 0, 0
	}
	n, err := f.file.Read(buf)
	return n, sys.UnwrapOSError(err) // io.EOF is zero
}

// Pread implements sys.File.Pread.
func (f *rootFile) Pread(buf []byte, off int64) (int, sys.Errno) {
	if errno := f.check(); errno != 0 {
		return 0, errno
	}
	switch {
	case f.isDir:
		return 0, sys.EISDIR
	case off < 0:
		return 0, sys.EINVAL
	case len(buf) == 0:
		return 0, 0
	}
	n, err := f.file.ReadAt(buf, off)
	return n, sys.UnwrapOSError(err) // io.EOF is zero
}

// fileOffset is int64. Seek spells its parameter this way only because go
// vet's stdmethods check insists that a Seek(int64, int) return error, while
// sys.File.Seek returns sys.Errno; the check does not see through aliases.
type fileOffset = int64

// Seek implements sys.File.Seek. On a directory only a rewind (offset zero
// from io.SeekStart) is supported, as the sys.File contract says.
func (f *rootFile) Seek(offset fileOffset, whence int) (int64, sys.Errno) {
	if errno := f.check(); errno != 0 {
		return 0, errno
	}
	if whence < io.SeekStart || whence > io.SeekEnd {
		return 0, sys.EINVAL
	}
	if f.isDir {
		if offset == 0 && whence == io.SeekStart {
			f.rewindDir = true
			return 0, 0
		}
		return 0, sys.EISDIR
	}
	n, err := f.file.Seek(offset, whence)
	return n, sys.UnwrapOSError(err)
}

// Readdir implements sys.File.Readdir.
func (f *rootFile) Readdir(n int) ([]sys.Dirent, sys.Errno) {
	if errno := f.check(); errno != 0 {
		return nil, errno
	}
	if !f.isDir {
		return nil, sys.EBADF // the contract's "not a directory"
	}
	if f.rewindDir {
		f.rewindDir = false
		if errno := f.reopen(f.flag); errno != 0 {
			// The directory was removed or replaced: rewind what we have.
			if _, err := f.file.Seek(0, io.SeekStart); err != nil {
				return nil, errno
			}
		}
	}
	fis, err := f.file.Readdir(n) // lstat relative to the directory's fd
	if err != nil && err != io.EOF {
		switch errno := sys.UnwrapOSError(err); errno {
		case sys.EINVAL, sys.ENOTDIR:
			return nil, sys.EBADF
		default:
			return nil, errno
		}
	}
	dirents := make([]sys.Dirent, 0, len(fis))
	for _, fi := range fis {
		dirents = append(dirents, sys.Dirent{
			Name: fi.Name(),
			Ino:  wazerosys.NewStat_t(fi).Ino,
			Type: fi.Mode().Type(),
		})
	}
	return dirents, 0
}

// Write implements sys.File.Write.
func (f *rootFile) Write(buf []byte) (int, sys.Errno) {
	if errno := f.checkWrite(); errno != 0 {
		return 0, errno
	}
	if len(buf) == 0 {
		return 0, 0
	}
	buf, errno := f.reserve(buf)
	if errno != 0 {
		return 0, errno
	}
	n, err := f.file.Write(buf)
	f.fs.quota.give(int64(len(buf) - n))
	return n, sys.UnwrapOSError(err)
}

// reserve cuts buf to what the mount's quota has left (a short write, as
// a nearly full disk gives), or fails when nothing is left: with EIO,
// since wazero's errno set has no ENOSPC; the audit says why.
func (f *rootFile) reserve(buf []byte) ([]byte, sys.Errno) {
	got := f.fs.quota.take(int64(len(buf)))
	if got == 0 {
		f.fs.recordWhy(auditWrite, f.path, sys.EIO, fmt.Sprintf("the mount's write limit of %d bytes is used up", f.fs.quota.max))
		return nil, sys.EIO
	}
	return buf[:got], 0
}

// Pwrite implements sys.File.Pwrite. os.File refuses WriteAt on a file in
// append mode (Linux would silently append instead); that is EINVAL here.
func (f *rootFile) Pwrite(buf []byte, off int64) (int, sys.Errno) {
	if errno := f.checkWrite(); errno != 0 {
		return 0, errno
	}
	switch {
	case off < 0 || f.IsAppend():
		return 0, sys.EINVAL
	case len(buf) == 0:
		return 0, 0
	}
	buf, errno := f.reserve(buf)
	if errno != 0 {
		return 0, errno
	}
	n, err := f.file.WriteAt(buf, off)
	f.fs.quota.give(int64(len(buf) - n))
	return n, sys.UnwrapOSError(err)
}

// Truncate implements sys.File.Truncate.
func (f *rootFile) Truncate(size int64) sys.Errno {
	if errno := f.checkWrite(); errno != 0 {
		return errno
	}
	if size < 0 {
		return sys.EINVAL
	}
	if f.fs.quota != nil {
		fi, err := f.file.Stat()
		if err != nil {
			return sys.UnwrapOSError(err)
		}
		if grow := size - fi.Size(); grow > 0 {
			if got := f.fs.quota.take(grow); got < grow {
				f.fs.quota.give(got)
				f.fs.recordWhy(auditWrite, f.path, sys.EIO, fmt.Sprintf("the mount's write limit of %d bytes is used up", f.fs.quota.max))
				return sys.EIO
			}
		}
	}
	return sys.UnwrapOSError(f.file.Truncate(size))
}

// Sync implements sys.File.Sync.
func (f *rootFile) Sync() sys.Errno {
	if f.closed {
		return sys.EBADF
	}
	return sys.UnwrapOSError(f.file.Sync())
}

// Datasync implements sys.File.Datasync as Sync: os.File has no fdatasync,
// and the contract allows the stronger call.
func (f *rootFile) Datasync() sys.Errno { return f.Sync() }

// Utimens implements sys.File.Utimens. os.File has no futimens, so this sets
// the times through the path, if it still names this file (ENOENT if not).
// It is EROFS on a read-only mount, whatever the descriptor's mode.
func (f *rootFile) Utimens(atim, mtim int64) sys.Errno {
	if errno := f.check(); errno != 0 {
		return errno
	}
	return f.fs.change(auditFutimens, f.path, true, func(at string) sys.Errno {
		if errno := f.samePath(at); errno != 0 {
			return errno
		}
		return pathErrno(f.fs.root.Chtimes(at, toTime(atim), toTime(mtim)))
	})
}

// Close implements sys.File.Close. Closing twice is not an error.
func (f *rootFile) Close() sys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	return sys.UnwrapOSError(f.file.Close())
}

func (f *rootFile) check() sys.Errno {
	if f.closed {
		return sys.EBADF
	}
	return 0
}

// checkWrite gives the errno write(2) would: EBADF when closed or not open
// for writing, EISDIR for a directory.
func (f *rootFile) checkWrite() sys.Errno {
	switch {
	case f.closed:
		return sys.EBADF
	case f.isDir:
		return sys.EISDIR
	case !f.writable():
		return sys.EBADF
	}
	return 0
}

// samePath checks that p (f.path, or what the guard resolved it to) still
// names the open file.
func (f *rootFile) samePath(p string) sys.Errno {
	open, err := f.file.Stat()
	if err != nil {
		return sys.UnwrapOSError(err)
	}
	now, err := f.fs.root.Stat(p)
	if err != nil {
		return pathErrno(err)
	}
	if !os.SameFile(open, now) {
		return sys.ENOENT
	}
	return 0
}

// reopen replaces the descriptor with a new one opened from f.path with
// flag (never creating or truncating), keeping the offset of a regular file.
// It fails with ENOENT if the path now names a different file.
func (f *rootFile) reopen(flag sys.Oflag) sys.Errno {
	flag &^= sys.O_CREAT | sys.O_EXCL | sys.O_TRUNC
	nf, err := fsguard.OpenFile(f.fs.root, f.path, toOSFlag(flag), 0)
	if err != nil {
		return pathErrno(err)
	}
	open, err := f.file.Stat()
	if err != nil {
		_ = nf.Close()
		return sys.UnwrapOSError(err)
	}
	now, err := nf.Stat()
	if err != nil {
		_ = nf.Close()
		return sys.UnwrapOSError(err)
	}
	if !os.SameFile(open, now) {
		_ = nf.Close()
		return sys.ENOENT
	}
	if !f.isDir {
		off, err := f.file.Seek(0, io.SeekCurrent)
		if err == nil {
			_, err = nf.Seek(off, io.SeekStart)
		}
		if err != nil {
			_ = nf.Close()
			return sys.UnwrapOSError(err)
		}
	}
	_ = f.file.Close()
	f.file = nf
	return 0
}
