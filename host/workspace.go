package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/fsguard"
)

// A Workspace is the workspace as the core tools see it, for host code
// that reads and writes whole files on a caller's behalf (a tskill's
// database): the same grant checks, the same confinement in the grant's
// [os.Root], the same protected folders and the same audit of denials as
// workspace_read and workspace_write, without going through a tool's
// text result. A Workspace holds no open file and is safe for concurrent
// use.
type Workspace struct {
	fs *workspaceFS
}

// NewWorkspace returns the workspace dir under granted, protected folders
// refused for writing as by [CoreTools].
func NewWorkspace(dir string, granted capabilities.Set, protected ...string) (*Workspace, error) {
	ws, err := newWorkspaceFS(dir, granted, protected)
	if err != nil {
		return nil, err
	}
	return &Workspace{fs: ws}, nil
}

// ReadFile returns the content of the workspace file p (relative to the
// workspace), refusing one over limit bytes. A missing file is an error
// that matches fs.ErrNotExist; a denial names the grant it needs and is
// audited to the auditor of ctx.
func (w *Workspace) ReadFile(ctx context.Context, p string, limit int64) ([]byte, error) {
	name, cp, err := resolveWorkspacePath(p)
	if err != nil {
		return nil, err
	}
	if name == "." {
		return nil, errors.New("path names the workspace itself; give a file path")
	}
	if err := w.fs.granted.CheckRead(cp); err != nil {
		auditGrantDenied(ctx, "read", cp, err)
		return nil, err
	}
	root, err := w.fs.openGrant(cp, false)
	if err != nil {
		auditDenied(ctx, "read", cp, err)
		return nil, err
	}
	defer root.Close()
	f, err := fsguard.OpenFile(root.Root, root.name, 0, 0)
	if err != nil {
		auditDenied(ctx, "read", cp, err)
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", name)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit", name, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew over the %d-byte limit while read", name, limit)
	}
	return data, nil
}

// WriteFile replaces the workspace file p with data, atomically (a
// reader sees the old content or the new, never part of it), creating
// its missing parent folders. A denial names the grant it needs and is
// audited to the auditor of ctx.
func (w *Workspace) WriteFile(ctx context.Context, p string, data []byte) error {
	name, cp, err := resolveWorkspacePath(p)
	if err != nil {
		return err
	}
	if name != "." {
		if err := w.fs.granted.CheckWrite(cp); err != nil {
			auditGrantDenied(ctx, "write", cp, err)
			return err
		}
	}
	t, res, err := w.fs.writeTarget(ctx, "write", p, false)
	if err != nil {
		return err
	}
	if t == nil {
		return errors.New(res.Content)
	}
	defer t.root.Close()
	if dir := path.Dir(t.at); dir != "." {
		if err := t.root.MkdirAll(dir, 0o755); err != nil {
			_, _ = t.fail(err)
			return err
		}
	}
	if err := writeAtomic(t.root.Root, t.at, data, 0); err != nil {
		_, _ = t.fail(err)
		return err
	}
	return nil
}

// auditGrantDenied records a use the grant does not cover.
func auditGrantDenied(ctx context.Context, kind string, cp capabilities.Path, err error) {
	audit.AuditorFrom(ctx).Audit(ctx, audit.Event{Kind: kind, Value: cp.String(),
		Decision: audit.Deny, Reason: err.Error()})
}
