package wire

import (
	"errors"
	"syscall"
)

// maxSocketPath is the longest path a Unix socket address holds (Linux's
// sun_path is 108 bytes, with its terminating NUL).
const maxSocketPath = 107

// ExeID returns the running executable's path, size and modification
// time as one string, or "" when it cannot be read: any rebuild changes
// it, so a client never talks to a resident of another build.
func ExeID() string {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	if err != nil || n == len(buf) {
		return ""
	}
	return ExeIDOf(string(buf[:n]))
}

// ExeIDOf is [ExeID] of the executable at the absolute path exe (what
// its processes compute), or "" when it cannot be read.
func ExeIDOf(exe string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(exe, &st); err != nil {
		return ""
	}
	return exe + "\x00" + itoa(uint64(st.Size)) + "\x00" + itoa(uint64(st.Mtim.Sec)) + "." + itoa(uint64(st.Mtim.Nsec))
}

// CacheDir returns the user's cache folder as os.UserCacheDir does on
// Linux: $XDG_CACHE_HOME if it is an absolute path, else $HOME/.cache.
func CacheDir() (string, error) {
	if dir, ok := syscall.Getenv("XDG_CACHE_HOME"); ok && dir != "" {
		if dir[0] != '/' {
			return "", errors.New("path in $XDG_CACHE_HOME is relative")
		}
		return dir, nil
	}
	home, _ := syscall.Getenv("HOME")
	if home == "" {
		return "", errors.New("neither $XDG_CACHE_HOME nor $HOME are defined")
	}
	return home + "/.cache", nil
}

// SocketPath returns the resident's socket for the executable identified
// by exeID in dir, which is created 0700 if missing (with its missing
// parents). An existing dir must be a folder (not a symlink) of this user
// that no one else may enter, or it is an error: another user who could
// write it could answer in the resident's place.
func SocketPath(dir, exeID string) (string, error) {
	if dir == "" || dir[0] != '/' {
		return "", errors.New("the resident's folder " + dir + " is not an absolute path")
	}
	if err := mkdirAll(dir); err != nil {
		return "", errors.New("creating " + dir + ": " + err.Error())
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return "", errors.New(dir + ": " + err.Error())
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return "", errors.New(dir + " is not a folder")
	case st.Mode&0o077 != 0:
		return "", errors.New(dir + " may be entered by others (mode " + octal(st.Mode&0o777) + "); it must be 0700")
	case int(st.Uid) != syscall.Getuid():
		return "", errors.New(dir + " belongs to user " + itoa(uint64(st.Uid)) + ", not this one")
	}
	p := dir + "/" + hex64(fnv64a(exeID)) + ".sock"
	if len(p) > maxSocketPath {
		return "", errors.New("socket path " + p + " is longer than " + itoa(maxSocketPath) + " bytes")
	}
	return p, nil
}

// mkdirAll creates dir and its missing parents, 0700.
func mkdirAll(dir string) error {
	for i := 1; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		err := syscall.Mkdir(dir[:i], 0o700)
		if err != nil && err != syscall.EEXIST {
			return err
		}
	}
	return nil
}
