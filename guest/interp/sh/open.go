package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"mvdan.cc/sh/v3/interp"
)

// open is the interpreter's open handler for redirections. WASI has no
// /dev, so the device files scripts use are served here: /dev/null,
// /dev/stdin, /dev/stdout, /dev/stderr (and /dev/fd/0-2). Every other
// path is a file of the sandbox's mounts, relative to the working
// directory.
func (sh *shell) open(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	switch name {
	case "/dev/null":
		return devNull{}, nil
	case "/dev/stdin", "/dev/fd/0":
		return stream{r: hc.Stdin}, nil
	case "/dev/stdout", "/dev/fd/1":
		return stream{w: hc.Stdout}, nil
	case "/dev/stderr", "/dev/fd/2":
		return stream{w: hc.Stderr}, nil
	}
	p := name
	if p != "" && !path.IsAbs(p) {
		p = path.Join(hc.Dir, p)
	}
	f, err := os.OpenFile(p, flag, perm)
	if err != nil {
		// A file to create in a folder outside every mount: the sandbox
		// answers read-only file system, bash on a host no such folder.
		if errors.Is(err, syscall.EROFS) {
			if _, serr := os.Stat(path.Dir(p)); errors.Is(serr, fs.ErrNotExist) {
				err = serr
			}
		}
		return nil, &os.PathError{Op: fmt.Sprintf("%s: line %d:", sh.name, hc.Pos.Line()), Path: name, Err: errors.New(errorText(err))}
	}
	return f, nil
}

// devNull reads nothing and discards writes.
type devNull struct{}

func (devNull) Read([]byte) (int, error)    { return 0, io.EOF }
func (devNull) Write(p []byte) (int, error) { return len(p), nil }
func (devNull) Close() error                { return nil }

// stream is one of the shell's standard streams opened by name.
type stream struct {
	r io.Reader
	w io.Writer
}

func (s stream) Read(p []byte) (int, error) {
	if s.r == nil {
		return 0, errors.New("bad file descriptor")
	}
	return s.r.Read(p)
}

func (s stream) Write(p []byte) (int, error) {
	if s.w == nil {
		return 0, errors.New("bad file descriptor")
	}
	return s.w.Write(p)
}

func (stream) Close() error { return nil }
