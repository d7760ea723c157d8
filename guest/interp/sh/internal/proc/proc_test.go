package proc

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
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
		assert.Equal(t, c.want, ErrorText(c.err), "ErrorText(%v)", c.err)
	}
}
