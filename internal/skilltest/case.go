package skilltest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/tools/txtar"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/internal/tomlx"
	"github.com/skillrun/skillrun/skills"
)

// Bounds of what a case file may hold.
const (
	maxCaseFile = 4 << 20 // a case file, inline files included
	maxCases    = 1000    // case files in one skill's tests/
)

// Kinds of case.
const (
	KindScript  = "script"  // a script of the skill
	KindCommand = "command" // a command line in the sandboxed shell
	KindTrigger = "trigger" // search phrasings
	KindSession = "session" // a scripted session
)

// A Case is one test case of a skill, as its file says.
type Case struct {
	// Name is the case file's name without its extension; ID is
	// "<skill>/<name>", what -run matches and reports show.
	Name, ID string
	// File is the case file's path; Skill the skill it tests.
	File  string
	Skill *skills.Skill
	// Kind is one of the Kind constants.
	Kind string

	Script    string
	Command   string
	Args      []string
	Stdin     string
	Input     string            // the JSON value the input host function reads
	Workspace string            // fixture folder, relative to the skill
	Files     map[string]string // more starting files, by workspace path
	Grant     Grant
	Timeout   capabilities.Duration
	Expect    Expect
	Trigger   *Trigger
	Plan      string // the session plan, relative to the skill

	// Err is why the case cannot run (a malformed file); it fails with it.
	Err error

	txtar *txtar.Archive // the parsed file, for --update
}

// Grant is what a case grants its run, in skill.toml's words.
type Grant struct {
	All    bool     `toml:"all" json:"all,omitempty"`
	Read   []string `toml:"read" json:"read,omitempty"`
	Write  []string `toml:"write" json:"write,omitempty"`
	Env    []string `toml:"env" json:"env,omitempty"`
	Net    []string `toml:"net" json:"net,omitempty"`
	Tools  []string `toml:"tools" json:"tools,omitempty"`
	MCP    []string `toml:"mcp" json:"mcp,omitempty"`
	Skills []string `toml:"skills" json:"skills,omitempty"`
}

// flags returns the grant as the CLI's grant flags, which the one grant
// resolver reads.
func (g Grant) flags() []capabilities.FlagGrant {
	var out []capabilities.FlagGrant
	for _, k := range []struct {
		kind   string
		values []string
	}{{"read", g.Read}, {"write", g.Write}, {"env", g.Env}, {"net", g.Net}, {"tools", g.Tools}, {"mcp", g.MCP}, {"skills", g.Skills}} {
		for _, v := range k.values {
			out = append(out, capabilities.FlagGrant{Kind: k.kind, Value: v, HasValue: true})
		}
	}
	return out
}

// Expect is what must hold after the run.
type Expect struct {
	Exit           *int              `toml:"exit"`
	Stdout         *string           `toml:"stdout"`
	Stderr         *string           `toml:"stderr"`
	StdoutContains []string          `toml:"stdout_contains"`
	StderrContains []string          `toml:"stderr_contains"`
	StdoutMatches  string            `toml:"stdout_matches"`
	StderrMatches  string            `toml:"stderr_matches"`
	Files          map[string]string `toml:"files"`
	Deleted        []string          `toml:"deleted"`
	Ignore         []string          `toml:"ignore"`

	stdoutRE, stderrRE *regexp.Regexp
}

// Trigger is a search case: phrasings that must (and must not) find the
// skill in the top Top results.
type Trigger struct {
	Should    []string `toml:"should"`
	ShouldNot []string `toml:"should_not"`
	Top       int      `toml:"top"`
}

// caseFile is a case file's TOML.
type caseFile struct {
	Script    string                `toml:"script"`
	Command   string                `toml:"command"`
	Args      []string              `toml:"args"`
	Stdin     *string               `toml:"stdin"`
	Input     string                `toml:"input"`
	Workspace string                `toml:"workspace"`
	Files     map[string]string     `toml:"files"`
	Grant     Grant                 `toml:"grant"`
	Timeout   capabilities.Duration `toml:"timeout"`
	Expect    Expect                `toml:"expect"`
	Trigger   *Trigger              `toml:"trigger"`
	Plan      string                `toml:"plan"`
}

// The keys each table of a case file may hold, for "did you mean".
var allowedKeys = map[string][]string{
	"":        {"script", "command", "args", "stdin", "input", "workspace", "files", "grant", "timeout", "expect", "trigger", "plan"},
	"grant":   {"all", "read", "write", "env", "net", "tools", "mcp", "skills"},
	"expect":  {"exit", "stdout", "stderr", "stdout_contains", "stderr_contains", "stdout_matches", "stderr_matches", "files", "deleted", "ignore"},
	"trigger": {"should", "should_not", "top"},
}

// Load finds the cases of skill s: the .toml and .txtar files of its
// tests/ folder, sorted by name. A case file that cannot be read or
// parsed is a Case with Err set; an error is returned only when the
// folder cannot be listed.
func Load(s *skills.Skill) ([]*Case, error) {
	dir := filepath.Join(filepath.Dir(s.Location), "tests")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cases []*Case
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".toml" && ext != ".txtar") || strings.HasSuffix(e.Name(), ".plan.toml") {
			continue
		}
		if len(cases) == maxCases {
			return nil, fmt.Errorf("%s: more than %d case files", dir, maxCases)
		}
		cases = append(cases, loadCase(s, filepath.Join(dir, e.Name())))
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

// loadCase reads one case file.
func loadCase(s *skills.Skill, file string) *Case {
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	c := &Case{Name: name, ID: s.Name + "/" + name, File: file, Skill: s}
	data, err := readBounded(file)
	if err != nil {
		c.Err = err
		return c
	}
	c.Err = c.parse(data)
	return c
}

func readBounded(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCaseFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > maxCaseFile {
		return nil, fmt.Errorf("%s: larger than the limit of %d MiB", file, maxCaseFile>>20)
	}
	return data, nil
}

// parse fills the case from its file's bytes.
func (c *Case) parse(data []byte) error {
	src := data
	if strings.HasSuffix(c.File, ".txtar") {
		c.txtar = txtar.Parse(data)
		src = c.txtar.Comment
	}
	lines, tooDeep := tomlx.LocateKeys(src)
	if tooDeep > 0 {
		return fmt.Errorf("%s:%d: tables nest too deeply", c.File, tooDeep)
	}
	var f caseFile
	md, err := toml.NewDecoder(bytes.NewReader(src)).Decode(&f)
	if err != nil {
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			return fmt.Errorf("%s:%d: invalid TOML: %s", c.File, pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("%s: %w", c.File, err)
	}
	var errs []error
	for _, k := range md.Undecoded() {
		table := ""
		if len(k) > 1 {
			table = k[0]
		}
		errs = append(errs, fmt.Errorf("%s:%d: unknown key %q%s", c.File, lines.Line(k), k.String(), tomlx.DidYouMean(k[len(k)-1], allowedKeys[table])))
	}
	c.Script, c.Command, c.Args, c.Input, c.Workspace = f.Script, f.Command, f.Args, f.Input, f.Workspace
	c.Files, c.Grant, c.Timeout, c.Expect, c.Trigger, c.Plan = f.Files, f.Grant, f.Timeout, f.Expect, f.Trigger, f.Plan
	if f.Stdin != nil {
		c.Stdin = *f.Stdin
	}
	if c.txtar != nil {
		errs = append(errs, c.fromArchive(f.Stdin != nil)...)
	}
	errs = append(errs, c.check()...)
	return errors.Join(errs...)
}

// fromArchive takes a txtar case's files: stdin, stdout, stderr,
// workspace/PATH and expect/PATH.
func (c *Case) fromArchive(hasStdin bool) []error {
	var errs []error
	seen := map[string]bool{}
	for _, f := range c.txtar.Files {
		if seen[f.Name] {
			errs = append(errs, fmt.Errorf("%s: file %q appears twice", c.File, f.Name))
			continue
		}
		seen[f.Name] = true
		body := string(f.Data)
		switch {
		case f.Name == "stdin":
			if hasStdin {
				errs = append(errs, fmt.Errorf("%s: stdin is given twice (the stdin key and a stdin file)", c.File))
			}
			c.Stdin = body
		case f.Name == "stdout" || f.Name == "stderr":
			dst := &c.Expect.Stdout
			if f.Name == "stderr" {
				dst = &c.Expect.Stderr
			}
			if *dst != nil {
				errs = append(errs, fmt.Errorf("%s: %s is expected twice ([expect] %s and a %s file)", c.File, f.Name, f.Name, f.Name))
			}
			*dst = &body
		case strings.HasPrefix(f.Name, "workspace/"):
			if c.Files == nil {
				c.Files = map[string]string{}
			}
			c.Files[strings.TrimPrefix(f.Name, "workspace/")] = body
		case strings.HasPrefix(f.Name, "expect/"):
			if c.Expect.Files == nil {
				c.Expect.Files = map[string]string{}
			}
			c.Expect.Files[strings.TrimPrefix(f.Name, "expect/")] = body
		default:
			errs = append(errs, fmt.Errorf("%s: unknown file %q: a case's files are stdin, stdout, stderr, workspace/PATH and expect/PATH", c.File, f.Name))
		}
	}
	return errs
}

// check validates a parsed case and sets its Kind.
func (c *Case) check() []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{c.File}, a...)...))
	}
	var kinds []string
	for _, k := range []struct {
		kind string
		set  bool
	}{{KindScript, c.Script != ""}, {KindCommand, c.Command != ""}, {KindTrigger, c.Trigger != nil}, {KindSession, c.Plan != ""}} {
		if k.set {
			kinds = append(kinds, k.kind)
		}
	}
	switch len(kinds) {
	case 0:
		bad("the case runs nothing: give script, command, [trigger] or plan")
	case 1:
		c.Kind = kinds[0]
	default:
		bad("give one of script, command, [trigger] and plan, not %s", strings.Join(kinds, " and "))
	}
	if len(c.Args) > 0 && c.Kind != KindScript {
		bad("args are a script's; a command line holds its own")
	}
	if c.Input != "" && !json.Valid([]byte(c.Input)) {
		bad("input is not a JSON value: %s", c.Input)
	}
	if c.Timeout < 0 {
		bad("timeout must be positive")
	}
	if c.Workspace != "" {
		if _, err := relPath(c.Workspace); err != nil {
			bad("workspace: %v", err)
		}
	}
	if c.Plan != "" {
		if _, err := relPath(c.Plan); err != nil {
			bad("plan: %v", err)
		}
	}
	for _, name := range sortedKeys(c.Files) {
		if _, err := relPath(name); err != nil {
			bad("workspace file %v", err)
		}
	}
	for _, name := range sortedKeys(c.Expect.Files) {
		if _, err := relPath(name); err != nil {
			bad("expected file %v", err)
		}
	}
	for _, name := range c.Expect.Deleted {
		if _, err := relPath(name); err != nil {
			bad("deleted: %v", err)
		}
	}
	for _, p := range c.Expect.Ignore {
		if _, err := path.Match(p, ""); err != nil {
			bad("ignore %q: %v", p, err)
		}
	}
	var err error
	if c.Expect.StdoutMatches != "" {
		if c.Expect.stdoutRE, err = regexp.Compile(c.Expect.StdoutMatches); err != nil {
			bad("stdout_matches: %v", err)
		}
	}
	if c.Expect.StderrMatches != "" {
		if c.Expect.stderrRE, err = regexp.Compile(c.Expect.StderrMatches); err != nil {
			bad("stderr_matches: %v", err)
		}
	}
	if t := c.Trigger; t != nil {
		if len(t.Should)+len(t.ShouldNot) == 0 {
			bad("[trigger] has no phrasings: give should and/or should_not")
		}
		if t.Top < 0 {
			bad("[trigger] top must be positive")
		}
		if t.Top == 0 {
			t.Top = 3
		}
	}
	return errs
}

// relPath checks that p is a clean relative path that stays inside its
// folder, and returns it with the host's separators.
func relPath(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("empty path")
	case path.IsAbs(p) || filepath.IsAbs(p) || strings.Contains(p, "\\"):
		return "", fmt.Errorf("%q is absolute: name it relative to its folder", p)
	case !filepath.IsLocal(filepath.FromSlash(p)):
		return "", fmt.Errorf("%q leads outside its folder", p)
	}
	return filepath.FromSlash(path.Clean(p)), nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
