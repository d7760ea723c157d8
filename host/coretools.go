package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/fsguard"
)

// Bounds on the core tools, so that no call reads, writes or returns
// without limit.
const (
	// maxReadSize is the most bytes workspace_read returns.
	maxReadSize = 1 << 20
	// maxWriteSize is the most bytes workspace_write writes.
	maxWriteSize = 1 << 20
	// maxListEntries is the most entries workspace_list returns.
	maxListEntries = 1000
	// maxSearchMatches is the most lines workspace_search returns.
	maxSearchMatches = 1000
	// maxSearchScan is the most file bytes one workspace_search reads.
	maxSearchScan = 8 << 20
	// maxMatchLine bounds one matching line as returned.
	maxMatchLine = 500
)

// Input schemas of the core tools.
const (
	workspaceReadSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path relative to the workspace, such as \"data/in.csv\"."}
  },
  "required": ["path"],
  "additionalProperties": false
}`
	workspaceWriteSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path relative to the workspace; missing parent directories are created."},
    "content": {"type": "string", "description": "The whole new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`
	workspaceListSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory relative to the workspace; the workspace itself if omitted."}
  },
  "additionalProperties": false
}`
	workspaceSearchSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression (Go RE2 syntax) matched against each line."},
    "path": {"type": "string", "description": "File or directory relative to the workspace to search; the whole workspace if omitted."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`
)

// CoreTools returns the core tools over the directory workspace:
// workspace_read, workspace_write, workspace_edit, workspace_list,
// workspace_search and workspace_glob. Each takes paths relative to the
// workspace. Each checks granted first ([capabilities.Set.CheckRead],
// [capabilities.Set.CheckWrite]); a denial is a result with IsError set
// whose content is the [capabilities.DeniedError] text, naming the flag
// that would grant it.
//
// The path is then resolved inside the grant that covers it, not inside
// the workspace: with read granted on workspace/data only, the tools open
// "data" as an [os.Root] (inside the workspace's root) and resolve the
// rest of the path in it, so an absolute path, a ".." segment or a
// symbolic link leading out of the granted folder is refused, as it is
// for a script's mount of the same grant. FIFOs, sockets and devices are
// refused, and opening one never blocks. Writing in, or renaming over,
// one of the protected host folders (skill folders, interpreters, the
// compile cache: the folders of code that runs later) is refused with a
// result saying the folder is protected. Refusals of these kinds are
// audited to the auditor of the call's context
// ([audit.WithAuditor]). Sizes are bounded: 1 MiB read or written per
// call (an edited file too), 1000 entries listed or matches found, 8 MiB
// of files scanned per search, 1000 entries visited and 100 files
// returned per glob.
//
// The tools open workspace on each call, so they hold no open file between
// calls. CoreTools returns an error if workspace is not a directory.
func CoreTools(workspace string, granted capabilities.Set, protected ...string) ([]Tool, error) {
	return coreTools(workspace, granted, protected)
}

// The names of the tools [CoreTools] returns.
const (
	toolRead   = "workspace_read"
	toolWrite  = "workspace_write"
	toolEdit   = "workspace_edit"
	toolList   = "workspace_list"
	toolSearch = "workspace_search"
	toolGlob   = "workspace_glob"
)

var workspaceToolNames = []string{toolRead, toolWrite, toolEdit, toolList, toolSearch, toolGlob}

// IsWorkspaceTool reports whether name is one of the tools [CoreTools]
// returns. Such a tool acts with the grant it was built over, so
// package scripts serves a script its own and never lends it a caller's.
func IsWorkspaceTool(name string) bool { return slices.Contains(workspaceToolNames, name) }

func coreTools(workspace string, granted capabilities.Set, protected []string) ([]Tool, error) {
	ws, err := newWorkspaceFS(workspace, granted, protected)
	if err != nil {
		return nil, err
	}
	def := func(name, desc, schema string, parallel bool) ToolDef {
		return ToolDef{Name: name, Description: desc, InputSchema: json.RawMessage(schema), Source: SourceCore, Parallel: parallel}
	}
	return []Tool{
		&coreTool{def(toolRead, "Read a text file in the workspace (at most 1 MiB; a longer file is truncated).", workspaceReadSchema, true), ws.read},
		&coreTool{def(toolWrite, "Write a file in the workspace, replacing it if it exists (at most 1 MiB).", workspaceWriteSchema, false), ws.write},
		&coreTool{def(toolEdit, "Replace an exact string in a text file of the workspace: old_string must occur exactly once, unless replace_all is set (files of at most 1 MiB).", workspaceEditSchema, false), ws.edit},
		&coreTool{def(toolList, "List the entries of a directory in the workspace: one per line, directories ending in \"/\".", workspaceListSchema, true), ws.list},
		&coreTool{def(toolSearch, "Search the lines of the files in the workspace for a regular expression; returns path:line: text for each match.", workspaceSearchSchema, true), ws.search},
		&coreTool{def(toolGlob, "Find the files in the workspace whose paths match a glob pattern such as \"**/*.sql\"; returns their paths, newest first.", workspaceGlobSchema, true), ws.glob},
	}, nil
}

// coreTool is a Tool made of a definition and a function.
type coreTool struct {
	def ToolDef
	run func(ctx context.Context, input json.RawMessage) (*ToolResult, error)
}

func (t *coreTool) Definition() ToolDef { return t.def }

func (t *coreTool) Call(ctx context.Context, input json.RawMessage) (*ToolResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return t.run(ctx, input)
}

// workspaceFS is the workspace the core tools share. It is safe for
// concurrent use: it holds only immutable data.
type workspaceFS struct {
	dir       string
	granted   capabilities.Set
	protected []string // host folders no tool may change (fsguard.Guard)
}

// newWorkspaceFS checks that workspace is a directory.
func newWorkspaceFS(workspace string, granted capabilities.Set, protected []string) (*workspaceFS, error) {
	fi, err := os.Stat(workspace)
	if err != nil {
		return nil, fmt.Errorf("host: workspace: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("host: workspace %s is not a directory", workspace)
	}
	return &workspaceFS{dir: workspace, granted: granted, protected: protected}, nil
}

// coreErrResult is the IsError result for err: the path error without the
// host's workspace directory, which the model need not see.
func coreErrResult(tool string, err error) *ToolResult {
	return ErrorResult(tool + ": " + err.Error())
}

// resolve checks a path given to a tool and returns it cleaned, relative
// to the workspace ("." for the workspace itself), with the capability
// path that names it.
func resolveWorkspacePath(p string) (string, capabilities.Path, error) {
	cp := capabilities.Path{Root: capabilities.RootWorkspace}
	switch {
	case strings.HasPrefix(p, "/"):
		return "", cp, fmt.Errorf("path %q is absolute; give a path relative to the workspace, such as \"data/in.csv\"", p)
	case strings.Contains(p, `\`):
		return "", cp, fmt.Errorf(`path %q contains a backslash; use "/" between segments`, p)
	case strings.ContainsRune(p, 0):
		return "", cp, fmt.Errorf("path %q contains a NUL byte", p)
	}
	clean := path.Clean("./" + p)
	if clean == ".." || strings.HasPrefix(clean, "../") || !fs.ValidPath(clean) {
		return "", cp, fmt.Errorf("path %q leads outside the workspace", p)
	}
	if clean != "." {
		cp.Sub = clean
	}
	return clean, cp, nil
}

// A grantRoot is the folder of the grant that covers a path, opened as an
// os.Root inside the workspace's root, with the path relative to it.
type grantRoot struct {
	*os.Root
	sub  string // the grant's folder, relative to the workspace ("" for all of it)
	name string // the path, relative to the grant's folder
}

// rel turns a path relative to the grant's folder into one relative to
// the workspace, as the caller named it.
func (g *grantRoot) rel(p string) string {
	return path.Join(g.sub, p)
}

// openGrant opens the root of the broadest grant that covers cp: a Write
// path when write is set, else a Read or Write path (writing implies
// reading, [capabilities.Set.CheckRead]). Checking the grant first, as the
// callers do, ensures there is one. With write, a missing grant folder is
// created, through the workspace's root.
func (w *workspaceFS) openGrant(cp capabilities.Path, write bool) (*grantRoot, error) {
	candidates := w.granted.Write
	if !write {
		candidates = append(append([]capabilities.Path{}, w.granted.Read...), w.granted.Write...)
	}
	var best *capabilities.Path
	for i, g := range candidates {
		if g.Contains(cp) && (best == nil || len(g.Sub) < len(best.Sub)) {
			best = &candidates[i]
		}
	}
	if best == nil {
		return nil, &capabilities.DeniedError{Kind: "read", Value: cp.String()}
	}
	root, err := fsguard.OpenRoot(w.dir, best.Sub, write, w.protected)
	if err != nil {
		return nil, err
	}
	name := "."
	if cp.Sub != best.Sub {
		name = strings.TrimPrefix(cp.Sub, best.Sub+"/")
		if best.Sub == "" {
			name = cp.Sub
		}
	}
	return &grantRoot{Root: root, sub: best.Sub, name: name}, nil
}

// auditDenied records a refusal the grant check could not see (a link
// leading out of the granted folder, a special file, a protected folder)
// with the auditor of ctx.
func auditDenied(ctx context.Context, kind string, cp capabilities.Path, err error) {
	if !errors.Is(err, fs.ErrPermission) && !isEscape(err) {
		return
	}
	audit.AuditorFrom(ctx).Audit(ctx, audit.Event{Kind: kind, Value: cp.String(),
		Decision: audit.Deny, Reason: err.Error()})
}

// isEscape reports whether err is os.Root's refusal of a path leading out
// of it (it has no exported sentinel: anything not from the OS).
func isEscape(err error) bool {
	pe, ok := errors.AsType[*fs.PathError](err)
	if !ok {
		return false
	}
	_, isErrno := errors.AsType[syscall.Errno](pe.Err)
	return !isErrno && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrInvalid)
}

// decode decodes a tool's input into v.
func decodeCoreInput(tool string, input json.RawMessage, v any) *ToolResult {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	if err := json.Unmarshal(input, v); err != nil {
		return ErrorResult(fmt.Sprintf("%s: invalid input: %v", tool, err))
	}
	return nil
}

// openForRead decodes a {"path": ...} input, checks the read grant and
// opens the path inside its grant's root. A non-nil result is the tool's
// answer (bad input, a path leaving the workspace or the grant, a denial,
// a missing file); a non-nil error is a host failure. On success it
// returns the path as given and the caller closes root and file.
func (w *workspaceFS) openForRead(ctx context.Context, tool string, input json.RawMessage) (string, *os.Root, *os.File, *ToolResult, error) {
	var in struct{ Path string }
	if res := decodeCoreInput(tool, input, &in); res != nil {
		return "", nil, nil, res, nil
	}
	_, cp, root, res := w.readRoot(ctx, tool, in.Path)
	if root == nil {
		return "", nil, nil, res, nil
	}
	f, err := fsguard.OpenFile(root.Root, root.name, os.O_RDONLY, 0)
	if err != nil {
		root.Close()
		auditDenied(ctx, "read", cp, err)
		return "", nil, nil, coreErrResult(tool, err), nil
	}
	return in.Path, root.Root, f, nil, nil
}

func (w *workspaceFS) read(ctx context.Context, input json.RawMessage) (*ToolResult, error) {
	const tool = "workspace_read"
	path, root, f, res, err := w.openForRead(ctx, tool, input)
	if res != nil || err != nil {
		return res, err
	}
	defer root.Close()
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return coreErrResult(tool, err), nil
	}
	if fi.IsDir() {
		return ErrorResult(fmt.Sprintf("%s: %s is a directory; use workspace_list", tool, path)), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReadSize+1))
	if err != nil {
		return coreErrResult(tool, err), nil
	}
	if len(data) > maxReadSize {
		content := string(data[:maxReadSize]) + fmt.Sprintf("\n[truncated: %s is %d bytes; only the first %d are shown]", path, fi.Size(), maxReadSize)
		return &ToolResult{Content: content}, nil
	}
	return &ToolResult{Content: string(data)}, nil
}

func (w *workspaceFS) write(ctx context.Context, input json.RawMessage) (*ToolResult, error) {
	const tool = "workspace_write"
	var in struct {
		Path    string
		Content *string
	}
	if res := decodeCoreInput(tool, input, &in); res != nil {
		return res, nil
	}
	if in.Content == nil {
		return ErrorResult(tool + ": invalid input: content is required"), nil
	}
	if len(*in.Content) > maxWriteSize {
		return ErrorResult(fmt.Sprintf("%s: content is %d bytes, over the %d-byte limit", tool, len(*in.Content), maxWriteSize)), nil
	}
	// The file is replaced by a rename, which never follows a symlink in
	// the last element; its folder is resolved (and checked) by the guard.
	t, res, err := w.writeTarget(ctx, tool, in.Path, false)
	if t == nil {
		return res, err
	}
	defer t.root.Close()
	root, at, name, fail := t.root, t.at, t.name, t.fail
	if dir := path.Dir(at); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
	}
	if err := writeAtomic(root.Root, at, []byte(*in.Content), 0); err != nil {
		return fail(err)
	}
	return &ToolResult{Content: fmt.Sprintf("wrote %d bytes to %s", len(*in.Content), name)}, nil
}

// readRoot checks that the workspace path p may be read and opens the
// root of the read grant that covers it (the caller closes it). A nil
// root comes with the tool's answer: the caller's mistake, or a denial,
// audited.
func (w *workspaceFS) readRoot(ctx context.Context, tool, p string) (name string, cp capabilities.Path, root *grantRoot, res *ToolResult) {
	name, cp, err := resolveWorkspacePath(p)
	if err != nil {
		return "", cp, nil, coreErrResult(tool, err)
	}
	if err := w.granted.CheckRead(cp); err != nil {
		return "", cp, nil, ErrorResult(err.Error())
	}
	root, err = w.openGrant(cp, false)
	if err != nil {
		auditDenied(ctx, "read", cp, err)
		return "", cp, nil, coreErrResult(tool, err)
	}
	return name, cp, root, nil
}

// A writeTarget is a workspace file a tool may change: the root of the
// write grant that covers it (the caller closes it), its path in that
// root as the guard resolved it, its name as the caller gave it, and
// fail, which audits a denial and makes the tool's answer.
type writeTarget struct {
	root     *grantRoot
	at, name string
	fail     func(error) (*ToolResult, error)
}

// writeTarget checks that the workspace path p may be written (the write
// grant, inside the grant's root, not a protected folder), following a
// symlink in its last element when followLast. A nil target comes with
// the tool's answer (the caller's mistake or a denial, audited) or an
// error of the host.
func (w *workspaceFS) writeTarget(ctx context.Context, tool, p string, followLast bool) (*writeTarget, *ToolResult, error) {
	name, cp, err := resolveWorkspacePath(p)
	if err != nil {
		return nil, coreErrResult(tool, err), nil
	}
	if name == "." {
		return nil, ErrorResult(tool + ": path names the workspace itself; give a file path"), nil
	}
	if err := w.granted.CheckWrite(cp); err != nil {
		return nil, ErrorResult(err.Error()), nil
	}
	fail := func(err error) (*ToolResult, error) {
		auditDenied(ctx, "write", cp, err)
		return coreErrResult(tool, err), nil
	}
	root, err := w.openGrant(cp, true)
	if err != nil {
		res, _ := fail(err)
		return nil, res, nil
	}
	guard, err := fsguard.New(root.Root, filepath.Join(w.dir, filepath.FromSlash(root.sub)), w.protected)
	if err != nil {
		root.Close()
		return nil, nil, fmt.Errorf("%s: %w", tool, err)
	}
	at, err := guard.Check(root.Root, root.name, followLast)
	if err != nil {
		if pe, ok := errors.AsType[*fsguard.ProtectedError](err); ok {
			pe.Path = name
		}
		root.Close()
		res, _ := fail(err)
		return nil, res, nil
	}
	return &writeTarget{root: root, at: at, name: name, fail: fail}, nil, nil
}

// writeAtomic writes data to a temporary file beside name and renames it
// over name, so that a reader never sees a partial file. The file gets the
// permission bits of perm exactly, or, if perm is 0, 0o644 less the umask,
// as a file os.WriteFile creates.
func writeAtomic(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	if fi, err := root.Lstat(name); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", name)
	}
	var f *os.File
	var tmp string
	for i := 0; ; i++ {
		tmp = fmt.Sprintf("%s.tmp%d-%d", name, os.Getpid(), i)
		var err error
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i == 100 {
			return err
		}
	}
	var err error
	if perm != 0 {
		err = f.Chmod(perm.Perm())
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// A wsListEntry is one entry in workspace_list's structured result.
type wsListEntry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir,omitempty"`
	Size int64  `json:"size"`
}

func (w *workspaceFS) list(ctx context.Context, input json.RawMessage) (*ToolResult, error) {
	const tool = "workspace_list"
	_, root, f, res, err := w.openForRead(ctx, tool, input)
	if res != nil || err != nil {
		return res, err
	}
	defer root.Close()
	defer f.Close()
	des, err := f.ReadDir(maxListEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return coreErrResult(tool, err), nil
	}
	truncated := len(des) > maxListEntries
	if truncated {
		des = des[:maxListEntries]
	}
	// ReadDir(n) returns entries in directory order; sort for a stable answer.
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var b strings.Builder
	entries := make([]wsListEntry, 0, len(des))
	for _, de := range des {
		e := wsListEntry{Name: de.Name(), Dir: de.IsDir()}
		if fi, err := de.Info(); err == nil && !de.IsDir() {
			e.Size = fi.Size()
		}
		entries = append(entries, e)
		b.WriteString(e.Name)
		if e.Dir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	if truncated {
		fmt.Fprintf(&b, "[truncated: more than %d entries]\n", maxListEntries)
	}
	structured, _ := json.Marshal(struct {
		Entries   []wsListEntry `json:"entries"`
		Truncated bool          `json:"truncated,omitempty"`
	}{entries, truncated})
	return &ToolResult{Content: b.String(), Structured: structured}, nil
}

// A wsSearchMatch is one line found by workspace_search.
type wsSearchMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

func (w *workspaceFS) search(ctx context.Context, input json.RawMessage) (*ToolResult, error) {
	const tool = "workspace_search"
	var in struct{ Pattern, Path string }
	if res := decodeCoreInput(tool, input, &in); res != nil {
		return res, nil
	}
	if len(in.Pattern) > maxQueryLen {
		return ErrorResult(fmt.Sprintf("%s: pattern is %d bytes, over the %d-byte limit", tool, len(in.Pattern), maxQueryLen)), nil
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return ErrorResult(fmt.Sprintf("%s: invalid pattern: %v", tool, err)), nil
	}
	_, cp, root, res := w.readRoot(ctx, tool, in.Path)
	if root == nil {
		return res, nil
	}
	defer root.Close()
	name := root.name
	if _, err := root.Stat(name); err != nil {
		auditDenied(ctx, "read", cp, err)
		return coreErrResult(tool, err), nil
	}
	var (
		matches []wsSearchMatch
		scanned int64
		limited string // why the search stopped early
	)
	fsys := root.FS()
	walkErr := fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return fs.SkipDir // an unreadable directory (or file): skip it
		}
		if !d.Type().IsRegular() {
			return nil // directories are walked; symlinks and devices are skipped
		}
		n, stop := searchWorkspaceFile(root, p, re, maxSearchScan-scanned, maxSearchMatches-len(matches), &matches)
		scanned += n
		switch stop {
		case wsStopScan:
			limited = fmt.Sprintf("[stopped: scanned the %d-byte limit]", maxSearchScan)
			return fs.SkipAll
		case wsStopMatches:
			limited = fmt.Sprintf("[stopped: %d matches]", maxSearchMatches)
			return fs.SkipAll
		}
		return nil
	})
	if walkErr != nil {
		return nil, fmt.Errorf("%s: %w", tool, walkErr)
	}
	var b strings.Builder
	for _, m := range matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
	}
	if limited != "" {
		b.WriteString(limited + "\n")
	}
	if len(matches) == 0 && limited == "" {
		b.WriteString("no matches\n")
	}
	structured, _ := json.Marshal(struct {
		Matches   []wsSearchMatch `json:"matches"`
		Truncated bool            `json:"truncated,omitempty"`
	}{append([]wsSearchMatch{}, matches...), limited != ""})
	return &ToolResult{Content: b.String(), Structured: structured}, nil
}

type wsStop int

const (
	wsStopNone wsStop = iota
	wsStopScan
	wsStopMatches
)

// searchWorkspaceFile appends the lines of file p that match re to out, reading at
// most budget bytes and appending at most room matches. It returns the
// bytes read and whether a limit stopped it. A file that looks binary (a
// NUL byte in its first 512 bytes) is skipped, and a file that cannot be
// opened (a symlink leading outside the grant, a FIFO swapped in since
// the walk saw a regular file) is ignored. Matches name the file relative
// to the workspace.
func searchWorkspaceFile(root *grantRoot, p string, re *regexp.Regexp, budget int64, room int, out *[]wsSearchMatch) (int64, wsStop) {
	f, err := fsguard.OpenFile(root.Root, p, os.O_RDONLY, 0)
	if err != nil {
		return 0, wsStopNone
	}
	defer f.Close()
	cr := &wsCountReader{r: io.LimitReader(f, budget+1)}
	br := bufio.NewReaderSize(cr, 64<<10)
	if head, _ := br.Peek(512); bytes.IndexByte(head, 0) >= 0 {
		return cr.n, wsStopNone
	}
	for line := 1; ; line++ {
		text, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) { // a very long line: match its first 64 KiB
			_, err = br.ReadSlice('\n')
		}
		if cr.n > budget {
			return budget, wsStopScan
		}
		text = bytes.TrimRight(text, "\r\n")
		if len(text) > 0 && re.Match(text) {
			if room == 0 {
				return cr.n, wsStopMatches
			}
			if len(text) > maxMatchLine {
				text = append(text[:maxMatchLine:maxMatchLine], "…"...)
			}
			*out = append(*out, wsSearchMatch{Path: root.rel(p), Line: line, Text: string(text)})
			room--
		}
		if err != nil {
			return cr.n, wsStopNone
		}
	}
}

// wsCountReader counts the bytes read through it.
type wsCountReader struct {
	r io.Reader
	n int64
}

func (c *wsCountReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
