// Package proc is what a built-in command of skillrun's sandboxed shell
// sees instead of a process: its arguments, standard streams, working
// directory and environment, and a way to run other commands (xargs,
// find -exec, awk's system()). Commands are plain Go functions so the
// whole shell, with its commands, is one WebAssembly module: no command
// touches a file the sandbox's mounts do not hold.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// A Command runs one built-in command. args[0] is the name it was called
// by; the result is its exit status (0 success, 1 failure, 2 usage, as
// GNU coreutils use them).
type Command func(e *Env, args []string) int

// Env is a command's process: its streams, directory and environment.
type Env struct {
	// Ctx is cancelled when the shell stops the command (a signal, the
	// shell's own end); long loops check it.
	Ctx context.Context
	// Stdin, Stdout and Stderr are the command's streams. Stdout and
	// Stderr are never nil; Stdin may read nothing.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Dir is the absolute working directory (a guest path such as
	// /workspace). Relative paths in arguments resolve against it.
	Dir string
	// Environ is the exported environment ("KEY=VALUE").
	Environ []string
	// Exec runs another command line (args[0] is a built-in or a function
	// of the shell) with the given streams and returns its exit status;
	// 127 when there is no such command.
	Exec func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// ExecContext is Exec under ctx (timeout's deadline): the command
	// line stops when ctx ends, interpreters it starts included.
	ExecContext func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Path resolves p against the working directory.
func (e *Env) Path(p string) string {
	if p == "" || path.IsAbs(p) {
		return p
	}
	return path.Join(e.Dir, p)
}

// Getenv returns the value of the environment variable key ("" if unset).
func (e *Env) Getenv(key string) string {
	v, _ := e.LookupEnv(key)
	return v
}

// LookupEnv returns the value of key and whether it is set.
func (e *Env) LookupEnv(key string) (string, bool) {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		kv := e.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}

// Open opens the named file (relative to Dir); "-" is standard input.
func (e *Env) Open(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(e.Stdin), nil
	}
	return os.Open(e.Path(name))
}

// Errorf writes "NAME: message" and a newline to standard error, as GNU
// tools report errors.
func (e *Env) Errorf(name, format string, a ...any) {
	fmt.Fprintf(e.Stderr, "%s: %s\n", name, fmt.Sprintf(format, a...))
}

// Cancelled reports whether the command should stop.
func (e *Env) Cancelled() bool {
	return e.Ctx != nil && e.Ctx.Err() != nil
}

// ErrorText is the text GNU tools print for err: "No such file or
// directory" for a missing file, "Permission denied", "Is a directory",
// and so on, without the operation and path Go puts in front.
func ErrorText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		err = se.Err
	}
	switch {
	case errors.Is(err, syscall.ENOTEMPTY): // before ErrExist, which it also matches
		return "Directory not empty"
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, syscall.EISDIR):
		return "Is a directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "Not a directory"
	case errors.Is(err, syscall.EROFS):
		return "Read-only file system"
	case errors.Is(err, syscall.ENOSPC):
		return "No space left on device"
	case errors.Is(err, syscall.EIO):
		return "Input/output error"
	}
	s := err.Error()
	if s != "" {
		s = string(s[0]-'a'+'A') + s[1:]
		if s[0] < 'A' || s[0] > 'Z' {
			s = err.Error()
		}
	}
	return s
}
