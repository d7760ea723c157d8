package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillrun/skillrun/internal/fsguard"
)

// workspaceEditSchema is workspace_edit's input schema: the arguments of
// Claude Code's Edit tool, under the same names.
const workspaceEditSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path relative to the workspace, such as \"models/orders.sql\"."},
    "old_string": {"type": "string", "description": "The exact text to replace, whitespace included; it must occur exactly once in the file unless replace_all is set."},
    "new_string": {"type": "string", "description": "The text to put in its place; it must differ from old_string."},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence of old_string, not just one (default false)."}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
}`

// An editInput is workspace_edit's decoded input.
type editInput struct {
	Path       string  `json:"path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
}

// check returns the tool's answer to input that no file could satisfy, or
// nil.
func (in *editInput) check(tool string) *ToolResult {
	switch {
	case in.OldString == nil:
		return ErrorResult(tool + ": invalid input: old_string is required")
	case in.NewString == nil:
		return ErrorResult(tool + ": invalid input: new_string is required")
	case *in.OldString == "":
		return ErrorResult(tool + ": invalid input: old_string is empty; give the text to replace (use workspace_write to create a file)")
	case *in.OldString == *in.NewString:
		return ErrorResult(tool + ": invalid input: old_string and new_string are the same; there is nothing to change")
	}
	return nil
}

// edit is workspace_edit: it replaces old_string with new_string in a
// file, as Claude Code's Edit does, and writes the file back atomically
// with its mode kept. It checks what workspace_write checks (the write
// grant, the grant's root, the protected folders), and the path's last
// symlink is followed, through the grant's root, so that editing a link
// edits the file it names rather than replacing the link.
func (w *workspaceFS) edit(ctx context.Context, input json.RawMessage) (*ToolResult, error) {
	const tool = toolEdit
	var in editInput
	if res := decodeCoreInput(tool, input, &in); res != nil {
		return res, nil
	}
	if res := in.check(tool); res != nil {
		return res, nil
	}
	t, res, err := w.writeTarget(ctx, tool, in.Path, true)
	if t == nil {
		return res, err
	}
	defer t.root.Close()
	root, at, name, fail := t.root, t.at, t.name, t.fail
	content, perm, res, err := readForEdit(root.Root, at, name)
	if res != nil || err != nil {
		if err != nil {
			return fail(err)
		}
		return res, nil
	}
	old, repl := *in.OldString, *in.NewString
	n := strings.Count(content, old)
	switch {
	case n == 0:
		return ErrorResult(fmt.Sprintf("%s: old_string not found in %s", tool, name)), nil
	case n > 1 && !in.ReplaceAll:
		return ErrorResult(fmt.Sprintf("%s: old_string occurs %d times in %s; give more surrounding context to make it unique, or set replace_all to replace every occurrence", tool, n, name)), nil
	case !in.ReplaceAll:
		n = 1
	}
	edited := strings.Replace(content, old, repl, n)
	if len(edited) > maxWriteSize {
		return ErrorResult(fmt.Sprintf("%s: the edited file would be %d bytes, over the %d-byte limit", tool, len(edited), maxWriteSize)), nil
	}
	if err := writeAtomic(root.Root, at, []byte(edited), perm); err != nil {
		return fail(err)
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return &ToolResult{Content: fmt.Sprintf("replaced %d occurrence%s in %s", n, plural, name)}, nil
}

// readForEdit reads the file at (a path of root) whole, with its
// permission bits. A result is the tool's answer (a folder, a file over
// maxReadSize, which name names); an error is the file's, to audit.
func readForEdit(root *os.Root, at, name string) (string, os.FileMode, *ToolResult, error) {
	f, err := fsguard.OpenFile(root, at, os.O_RDONLY, 0)
	if err != nil {
		return "", 0, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, nil, err
	}
	if fi.IsDir() {
		return "", 0, ErrorResult(fmt.Sprintf("%s: %s is a directory", toolEdit, name)), nil
	}
	tooBig := func(size int64) *ToolResult {
		return ErrorResult(fmt.Sprintf("%s: %s is %d bytes, over the %d-byte limit of files it edits", toolEdit, name, size, maxReadSize))
	}
	if fi.Size() > maxReadSize {
		return "", 0, tooBig(fi.Size()), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReadSize+1))
	if err != nil {
		return "", 0, nil, err
	}
	if len(data) > maxReadSize { // it grew since the Stat
		return "", 0, tooBig(int64(len(data))), nil
	}
	return string(data), fi.Mode().Perm(), nil, nil
}
