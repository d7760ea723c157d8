package proc

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}, "No such file or directory"},
		{&os.LinkError{Op: "rename", Old: "a", New: "b", Err: syscall.ENOTEMPTY}, "Directory not empty"},
		{&fs.PathError{Op: "mkdir", Path: "x", Err: syscall.EEXIST}, "File exists"},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, "Permission denied"},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EISDIR}, "Is a directory"},
		{fmt.Errorf("bad thing"), "Bad thing"},
	} {
		if got := ErrorText(c.err); got != c.want {
			t.Errorf("ErrorText(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
