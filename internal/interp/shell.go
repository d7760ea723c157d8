package interp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// A modulePatch is a dependency of the shell guest that its build
// changes: the build uses a writable copy of the module (in work/dir),
// patched, through a go.mod copy that replaces the module with it
// (-modfile). Go's -overlay cannot replace files in the module cache.
// Nothing of these modules is kept in skillrun's tree; a build fails
// with a clear message if a later version moves what a patch rewrites.
type modulePatch struct {
	module, dir string
	patch       func(copyDir string) error
}

// shellPatches are the shell guest's patched dependencies.
var shellPatches = []modulePatch{
	// mvdan.cc/sh's interpreter connects pipeline stages and
	// here-documents with os.Pipe, which GOOS=wasip1 lacks; its js/wasm
	// port uses in-process io.Pipes instead (stdin_js.go), which is what
	// a WASI module needs too: that file's build constraint is widened to
	// wasip1 (the copy is stdin_wasip1.go, as a _js.go file name implies
	// GOOS=js).
	{"mvdan.cc/sh/v3", "mvdan-sh", func(dir string) error {
		osFile := filepath.Join(dir, "interp", "stdin_os.go")
		jsFile := filepath.Join(dir, "interp", "stdin_js.go")
		if err := rewriteOnce(osFile, "//go:build !js\n", "//go:build !js && !wasip1\n", osFile); err != nil {
			return err
		}
		if err := rewriteOnce(jsFile, "//go:build js\n", "//go:build wasip1\n", filepath.Join(dir, "interp", "stdin_wasip1.go")); err != nil {
			return err
		}
		return patchShellSources(dir)
	}},
	// gojq builds the syntax trees of its builtin definitions in a
	// package init: 8 ms of every shell command's start in WebAssembly,
	// jq or not. The patch builds them on first use.
	{"github.com/itchyny/gojq", "gojq", func(dir string) error {
		builtin := filepath.Join(dir, "builtin.go")
		if err := rewriteOnce(builtin, "func init() {\n\tbuiltinFuncDefs = ", "func initBuiltinFuncDefs() {\n\tbuiltinFuncDefs = ", builtin); err != nil {
			return err
		}
		compiler := filepath.Join(dir, "compiler.go")
		if err := rewriteOnce(compiler, "builtinFuncDefs[e.Name]", "lazyBuiltinFuncDefs()[e.Name]", compiler); err != nil {
			return err
		}
		if err := rewriteOnce(compiler, "range builtinFuncDefs {", "range lazyBuiltinFuncDefs() {", compiler); err != nil {
			return err
		}
		if err := patchGojqOrder(dir); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "builtin_lazy.go"), []byte(`package gojq

import "sync"

var builtinOnce sync.Once

// lazyBuiltinFuncDefs is builtinFuncDefs, built on first use
// (skillrun's shell build: internal/interp/shell.go).
func lazyBuiltinFuncDefs() map[string][]*FuncDef {
	builtinOnce.Do(initBuiltinFuncDefs)
	return builtinFuncDefs
}
`), 0o644)
	}},
}

// patchShellBuild prepares the build of the shell guest in work: the
// copies of shellPatches' modules, patched, and the go.mod and go.sum
// that replace the modules with them. It returns the go build arguments
// that use them.
func patchShellBuild(ctx context.Context, src, work string) ([]string, error) {
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return nil, err
	}
	for _, p := range shellPatches {
		list := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", p.module)
		list.Dir = src
		out, err := list.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -m %s: %w (run `make deps`)", p.module, err)
		}
		modDir, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
		if modDir == "" {
			return nil, fmt.Errorf("%s is not in the module cache (run `make deps`)", p.module)
		}
		copyDir := filepath.Join(work, p.dir)
		if err := copyTreeWritable(modDir, copyDir); err != nil {
			return nil, err
		}
		if err := p.patch(copyDir); err != nil {
			return nil, err
		}
		gomod = append(gomod, []byte(fmt.Sprintf("\nreplace %s => %s\n", p.module, copyDir))...)
	}
	modfile := filepath.Join(work, "go.mod")
	if err := os.WriteFile(modfile, gomod, 0o644); err != nil {
		return nil, err
	}
	gosum, err := os.ReadFile(filepath.Join(src, "go.sum"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "go.sum"), gosum, 0o644); err != nil {
		return nil, err
	}
	return []string{"-modfile", modfile}, nil
}

// rewriteOnce writes file to dst with the first from in it replaced by
// to, and fails if file has no from.
func rewriteOnce(file, from, to, dst string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(from)) {
		return fmt.Errorf("%s no longer has %q, which the shell's wasip1 build rewrites; update internal/interp/shell.go", file, strings.TrimSpace(from))
	}
	return os.WriteFile(dst, bytes.Replace(b, []byte(from), []byte(to), 1), 0o644)
}

// copyTreeWritable copies the Go files and go.mod of a module tree
// (module cache files are read-only), skipping test data.
func copyTreeWritable(from, to string) error {
	return filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if e.IsDir() {
			if e.Name() == "testdata" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if n := e.Name(); n != "go.mod" && !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
}

// shellPatchFiles are skillrun's additions to mvdan.cc/sh, by package
// (shellpatch/PKG/NAME is written into PKG as skillrun_NAME): in interp,
// fds.go has descriptors above 2, {var} descriptors, n>&m- and <>, and
// process substitution through files of the shell's /tmp (WASI has no
// FIFOs), and alias.go bash's alias and unalias and recursive alias
// expansion; expand/arith.go and interp/arith.go let arithmetic assign
// to array elements; expand/split.go splits fields on IFS characters
// other than blanks as bash does; */assoc.go read associative array
// literals and keys as bash 5.2 does; interp/options.go has bash's trap,
// set and shopt with all of bash's options, noclobber and $-;
// */arith2.go have bash's errors of arithmetic (malformed constants,
// messages, abandoning the command line), shift counts modulo 64,
// [[ -eq ]] on expressions and [[ =~ ]] with quoted parts and
// BASH_REMATCH as bash has them, and syntax/arith.go arithmetic
// assignments to names built by expansions ($(( x$foo = 1 ))); expand/varref.go has bash's ${!ref}
// with operators and element, array and special targets;
// interp/bracket.go test and [ as bash evaluates them; interp/declare.go
// declare -p, -F and the listings of declare, export, readonly and
// local as bash prints them.
//
//go:embed shellpatch/*/*.go
var shellPatchFiles embed.FS

// shellHooks are where mvdan.cc/sh's files call into shellPatchFiles (file
// is PKG/NAME), applied in order. Hooks of one feature area may live in
// their own file (shellhooks_AREA.go) and append themselves in an init
// function; they then apply after these, in file-name order.
var shellHooks = []shellHook{
	{"interp/api.go", "stderr io.Writer\n", "stderr io.Writer\n\tsk     skState // skillrun: descriptors above 2, process substitution\n\tskOpt  skOptState // skillrun: traps and bash's options\n", 0},
	{"interp/api.go", "origStdout: r.origStdout, // used for process substitutions\n\t}",
		"origStdout: r.origStdout, // used for process substitutions\n\t\tsk: r.sk.inherit(),\n\t\tskOpt: r.skOpt.inherit(),\n\t}", 0},
	{"interp/runner.go", "ProcSubst: func(ps *syntax.ProcSubst) (string, error) {\n",
		"ProcSubst: func(ps *syntax.ProcSubst) (string, error) {\n\t\t\tif runtime.GOOS == \"wasip1\" {\n\t\t\t\treturn r.skProcSubst(ctx, ps)\n\t\t\t}\n", 0},
	{"interp/runner.go", "oldIn, oldOut, oldErr := r.stdin, r.stdout, r.stderr\n",
		"oldIn, oldOut, oldErr := r.stdin, r.stdout, r.stderr\n\toldSK := r.skStmtStart()\n\tdefer r.skStmtEnd(ctx)\n", 0},
	{"interp/runner.go", "r.keepRedirs = false\n\t} else if len(st.Redirs) > 0 {\n\t\tr.stdin, r.stdout, r.stderr = oldIn, oldOut, oldErr\n",
		"r.keepRedirs = false\n\t\tr.skKept(oldSK)\n\t} else if len(st.Redirs) > 0 {\n\t\tr.sk.fds = oldSK\n\t\tr.stdin, r.stdout, r.stderr = oldIn, oldOut, oldErr\n", 0},
	{"interp/runner.go", "func (r *Runner) redir(ctx context.Context, rd *syntax.Redirect) (io.Closer, error) {\n",
		"func (r *Runner) redir(ctx context.Context, rd *syntax.Redirect) (io.Closer, error) {\n\tif cls, ok, err := r.skRedir(ctx, rd); ok {\n\t\treturn cls, err\n\t}\n", 0},
	{"interp/runner.go", "r.handlerCtx(ctx, handlerKindOpen, todoPos)", "r.handlerCtx(ctx, handlerKindOpen, r.sk.pos)", 0},
	{"interp/api.go", "type alias struct {\n\targs  []*syntax.Word\n\tblank bool\n", "type alias struct {\n\targs  []*syntax.Word\n\tblank bool\n\tsrc   string\n", 0},
	{"interp/runner.go", "args := cm.Args\n\t\tfor i := 0; i < len(args); {\n\t\t\tif !r.opts[optExpandAliases] {",
		"args := r.skAliases(cm.Args)\n\t\tfor i := len(args); i < len(args); {\n\t\t\tif !r.opts[optExpandAliases] {", 0},
	{"interp/builtin.go", "case \"alias\":\n", "case \"alias\":\n\t\treturn r.skAlias(pos, args)\n", 0},
	{"interp/builtin.go", "case \"unalias\":\n", "case \"unalias\":\n\t\treturn r.skUnalias(pos, args)\n", 0},
	{"interp/api.go", "r.trapCallback(ctx, r.callbackExit, \"exit\")\n\t}\n\tmaps.Insert(r.Vars, r.writeEnv.Each)\n",
		"r.trapCallback(ctx, r.callbackExit, \"exit\")\n\t}\n\tr.skExit(ctx)\n\tmaps.Insert(r.Vars, r.writeEnv.Each)\n", 0},
	{"expand/arith.go", "name := expr.X.(*syntax.Word).Lit()\n", "name, err := skArithRef(cfg, expr.X)\n\t\t\tif err != nil {\n\t\t\t\treturn 0, err\n\t\t\t}\n", 0},
	{"expand/arith.go", "name := b.X.(*syntax.Word).Lit()\n", "name, err := skArithRef(cfg, b.X)\n\tif err != nil {\n\t\treturn 0, err\n\t}\n", 0},
	{"expand/expand.go", "splitAdd := func(val string) {\n\t\tfieldStart := -1\n",
		"splitState := skSplitStart\n\tsplitAdd := func(val string) {\n\t\tcfg.skSplit(val, &curField, &splitState, flush)\n\t\treturn\n\t\tfieldStart := -1\n", 0},
	{"expand/expand.go", "\t\t\t\t\tsplitAdd(elem)\n", "\t\t\t\t\tsplitState = skSplitStart\n\t\t\t\t\tsplitAdd(elem)\n", 0},
	{"interp/vars.go", "\tif valType == \"-A\" {\n\t\tamap := make(map[string]string, len(elems))\n",
		"\tif valType == \"-A\" {\n\t\treturn r.skAssocAssign(name, prev, as, elems)\n\t\tamap := make(map[string]string, len(elems))\n", 0},
	{"interp/vars.go", "\tif valType == \"\" {\n\t\tvalType = \"-a\" // indexed\n",
		"\tif valType == \"\" && prev.Kind == expand.Associative {\n\t\tvalType = \"-A\"\n\t}\n\tif valType == \"\" {\n\t\tvalType = \"-a\" // indexed\n", 0},
	{"interp/vars.go", "\t\tw, ok := index.(*syntax.Word)\n\t\tif !ok {\n\t\t\treturn\n\t\t}\n\t\tk := r.literal(w)\n",
		"\t\tk := expand.SkillrunAssocKey(r.ecfg, index)\n", 0},
	{"interp/test.go", "return r.lookupVar(x).IsSet()", "return r.skVarSet(x)", 0},
	{"expand/param.go", "val, err := Literal(cfg, idx.(*syntax.Word))", "val, err := SkillrunAssocKey(cfg, idx), error(nil)", 0},
	{"expand/param.go", "func (cfg *Config) replaceElems(repl *syntax.Replace, elems []string) ([]string, error) {\n",
		"func (cfg *Config) replaceElems(repl *syntax.Replace, elems []string) ([]string, error) {\n\tif out, ok, err := cfg.skAnchoredReplace(repl, elems); ok {\n\t\treturn out, err\n\t}\n", 0},
	{"expand/param.go", "\t\tcase Indexed:\n\t\t\tindexAllElements = true\n\t\t\tcallVarInd = false\n",
		"\t\tcase Associative:\n\t\t\tindexAllElements = true\n\t\t\telems = skAssocValues(vr)\n\t\tcase Indexed:\n\t\t\tindexAllElements = true\n\t\t\tcallVarInd = false\n", 0},
	// var-ref: ${!ref} with operators and element, array and special targets.
	{"expand/param.go", "func (cfg *Config) paramExp(pe *syntax.ParamExp) (string, error) {\n",
		"func (cfg *Config) paramExp(pe *syntax.ParamExp) (string, error) {\n\tif np, err := cfg.skIndirect(pe); err != nil {\n\t\treturn \"\", err\n\t} else if np != nil {\n\t\tpe = np\n\t}\n", 0},
	{"expand/expand.go", "func (cfg *Config) unquotedElemFields(pe *syntax.ParamExp) ([]string, bool) {\n",
		"func (cfg *Config) unquotedElemFields(pe *syntax.ParamExp) ([]string, bool) {\n\tif np, err := cfg.skIndirect(pe); err != nil {\n\t\treturn nil, false\n\t} else if np != nil {\n\t\tpe = np\n\t}\n", 0},
	{"expand/expand.go", "func (cfg *Config) quotedElemFields(pe *syntax.ParamExp) ([]string, error) {\n",
		"func (cfg *Config) quotedElemFields(pe *syntax.ParamExp) ([]string, error) {\n\tif np, err := cfg.skIndirect(pe); err != nil {\n\t\treturn nil, err\n\t} else if np != nil {\n\t\tpe = np\n\t}\n", 0},
	{"interp/runner.go", "case errors.Is(err, errReadOnly):\n", "case errors.Is(err, errReadOnly), expand.SkillrunFailsCommand(err):\n", 0},
	{"interp/builtin.go", "case \"test\":\n\t\tparseErr := false\n", "case \"test\":\n\t\treturn r.skTest(ctx, pos, name, args)\n\t\tparseErr := false\n", 0},
	{"interp/runner.go", "case *syntax.DeclClause:\n\t\tlocal, global := false, false\n", "case *syntax.DeclClause:\n\t\tif r.skDecl(cm) {\n\t\t\tbreak\n\t\t}\n\t\tlocal, global := false, false\n", 0},
	{"interp/runner.go", "if declQuery == \"-p\" {\n", "if declQuery == \"-p\" {\n\t\t\t\tr.skDeclPrint(cm.Variant.Value, name)\n\t\t\t\tcontinue\n", 0},
	{"interp/builtin.go", "case \"eval\":\n\t\tsrc := strings.Join(args, \" \")\n", "case \"eval\":\n\t\tif len(args) > 0 && args[0] == \"--\" {\n\t\t\targs = args[1:] // eval -- code\n\t\t}\n\t\tsrc := strings.Join(args, \" \")\n", 0},
	{"interp/runner.go", "\t\t\tname := as.Name.Value\n\t\t\tif !syntax.ValidName(name) {\n", "\t\t\tname := as.Name.Value\n\t\t\tif name == \"--\" && as.Naked {\n\t\t\t\tcontinue // declare -- name=value\n\t\t\t}\n\t\t\tif !syntax.ValidName(name) {\n", 0},
	{"interp/builtin.go", "} else if vars && r.lookupVar(arg).IsSet() {\n\t\t\t\tr.delVar(arg)\n",
		"} else if vars && r.lookupVar(arg).ReadOnly {\n\t\t\t\tr.errf(\"unset: %s: cannot unset: readonly variable\\n\", arg)\n\t\t\t\texit.code = 1\n\t\t\t} else if vars && r.lookupVar(arg).IsSet() {\n\t\t\t\tr.delVar(arg)\n", 0},
	{"expand/arith.go", "atoi(cfg.envGet(name))", "atoi(name.get(cfg))", 2},
	{"expand/arith.go", "// default to 0\n\t\treturn int(atoi(str)), nil\n", "return skDynamic(cfg, str)\n", 0},
	{"expand/arith.go", "cfg.envSet(name, strconv.FormatInt(val, 10))", "name.set(cfg, strconv.FormatInt(val, 10))", 2},
	{"interp/builtin.go", "case \"trap\":\n", "case \"trap\":\n\t\treturn r.skTrap(pos, args)\n", 0},
	{"interp/builtin.go", "case \"shopt\":\n", "case \"shopt\":\n\t\treturn r.skShopt(pos, args)\n", 0},
	{"interp/builtin.go", "case \"set\":\n", "case \"set\":\n\t\treturn r.skSetBuiltin(pos, args)\n", 0},
	{"interp/vars.go", "r.posixOptFlags()", "r.skFlags()", 0},
	{"interp/runner.go", "\tr.stmts(ctx, file.Stmts)\n\tr.exit, r.lastExit = oldExit, oldLastExit",
		"\tr.stmts(ctx, file.Stmts)\n\tif r.exit.exiting {\n\t\treturn // exit in a trap ends the shell with its status\n\t}\n\tr.exit, r.lastExit = oldExit, oldLastExit", 0},
	{"interp/test.go", "if opt := r.posixOptByName(x); opt != nil {", "if on, ok := r.skSetOpt(x); ok {\n\t\t\treturn on\n\t\t}\n\t\tif opt := r.posixOptByName(x); opt != nil {", 0},
	{"expand/arith.go", "func Arithm(cfg *Config, expr syntax.ArithmExpr) (int, error) {\n",
		"func Arithm(cfg *Config, expr syntax.ArithmExpr) (int, error) {\n\tn, err := skArithm(cfg, expr)\n\treturn n, skArithErr(expr, err)\n}\n\nfunc skArithm(cfg *Config, expr syntax.ArithmExpr) (int, error) {\n", 0},
	{"expand/expand.go", "case *syntax.ArithmExp:\n\t\t\tn, err := Arithm(cfg, wp.X)\n", "case *syntax.ArithmExp:\n\t\t\tn, err := skArithmExp(cfg, wp.X)\n", 2},
	{"expand/arith.go", "name, err := skArithRef(cfg, expr.X)\n\t\t\tif err != nil {\n\t\t\t\treturn 0, err\n\t\t\t}\n",
		"name, err := skArithRef(cfg, expr.X)\n\t\t\tif err == nil && name.key == nil {\n\t\t\t\terr = skNounset(cfg, name.name)\n\t\t\t}\n\t\t\tif err != nil {\n\t\t\t\treturn 0, err\n\t\t\t}\n", 0},
	{"expand/arith.go", "uint(y)", "(uint(y) & 63)", 2},
	{"expand/arith.go", "uint(arg)", "(uint(arg) & 63)", 2},
	{"interp/api.go", "\thandlingTrap bool", "\tskAbort bool // skillrun: an error of arithmetic abandons the command line\n\thandlingTrap bool", 0},
	{"interp/api.go", "r.filename = node.Name\n\t\tr.stmts(ctx, node.Stmts)", "r.filename = node.Name\n\t\tr.skTopStmts(ctx, node.Stmts)", 0},
	{"interp/runner.go", "errMsg := err.Error()\n\tfmt.Fprintln(r.stderr, errMsg)\n", "if r.skExpandErr(err) {\n\t\treturn\n\t}\n\terrMsg := err.Error()\n\tfmt.Fprintln(r.stderr, errMsg)\n", 0},
	{"interp/runner.go", "n, err := expand.Arithm(r.ecfg, expr)\n\tr.expandErr(err)\n", "n, err := expand.Arithm(r.ecfg, expr)\n\tr.skArithmErr(err)\n", 0},
	{"interp/test.go", "\tcase *syntax.BinaryTest:\n\t\tswitch x.Op {\n", "\tcase *syntax.BinaryTest:\n\t\tif x.Op == syntax.TsReMatch && !classic {\n\t\t\treturn r.skReMatch(x)\n\t\t}\n\t\tswitch x.Op {\n\t\tcase syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:\n\t\t\tif !classic {\n\t\t\t\treturn r.skArithTest(x)\n\t\t\t}\n", 0},
	{"interp/runner.go", "if r.bashTest(ctx, cm.X, false) == \"\" && r.exit.ok() {", "if r.skTestClause(ctx, cm.X) == \"\" && r.exit.ok() {", 0},
	{"expand/arith.go", "val := cfg.envGet(str)\n", "val := skArithVal(cfg, str)\n", 0},
	{"syntax/parser_arithm.go", "\tw, ok := left.(*Word)\n\tif !ok || len(w.Parts) != 1 {\n\t\treturn false\n\t}\n\tswitch wp := w.Parts[0].(type) {\n\tcase *Lit:\n\t\treturn ValidName(wp.Value)\n\tcase *ParamExp:\n\t\treturn wp.nakedIndex()\n",
		"\tw, ok := left.(*Word)\n\tif !ok {\n\t\treturn false\n\t}\n\tif len(w.Parts) != 1 {\n\t\treturn skDynArithName(w)\n\t}\n\tswitch wp := w.Parts[0].(type) {\n\tcase *Lit:\n\t\treturn ValidName(wp.Value)\n\tcase *ParamExp:\n\t\treturn wp.nakedIndex() || skDynArithName(w)\n", 0},
}

// shellHook rewrites from into to in one of mvdan.cc/sh's files: from
// must occur exactly n times (once for 0), so a new mvdan.cc/sh that
// moves the code fails the build naming the hook.
type shellHook struct {
	file, from, to string
	n              int
}

// patchShellSources adds shellPatchFiles to the module's copy in dir and
// hooks them in.
func patchShellSources(dir string) error {
	if err := applyHooks(dir, shellHooks); err != nil {
		return err
	}
	files, err := fs.Glob(shellPatchFiles, "shellpatch/*/*.go")
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := shellPatchFiles.ReadFile(f)
		if err != nil {
			return err
		}
		b = stripIgnore(b)
		pkg := path.Base(path.Dir(f))
		if err := os.WriteFile(filepath.Join(dir, pkg, "skillrun_"+path.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// stripIgnore drops the build constraint that keeps a patch file out of
// skillrun's own build.
func stripIgnore(b []byte) []byte {
	return bytes.Replace(b, []byte("//go:build ignore\n\n"), nil, 1)
}

// applyHooks rewrites a module copy in dir with hooks, in order.
func applyHooks(dir string, hooks []shellHook) error {
	for _, h := range hooks {
		file := filepath.Join(dir, h.file)
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		want := max(h.n, 1)
		if n := bytes.Count(b, []byte(h.from)); n != want {
			return fmt.Errorf("%s has %q %d times, where the shell's wasip1 build hooks in %d; update internal/interp", file, strings.TrimSpace(h.from), n, want)
		}
		if err := os.WriteFile(file, bytes.ReplaceAll(b, []byte(h.from), []byte(h.to)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// shellRecipe fingerprints the shell build's patches as this binary
// applies them: its embedded patch files and hooks. A cached sh.wasm
// built by another binary of the same tree (an older build of it, a test
// binary) is then not taken for this one's. The embedded files never
// change in a process, so it is computed once: Ensure asks for it on
// every run.
var shellRecipe = sync.OnceValue(func() string {
	h := sha256.New()
	files, _ := fs.Glob(shellPatchFiles, "shellpatch/*/*.go")
	for _, f := range files {
		b, _ := shellPatchFiles.ReadFile(f)
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	for _, hk := range slices.Concat(shellHooks, gojqOrderHooks) {
		fmt.Fprintf(h, "%q %q %q %d\n", hk.file, hk.from, hk.to, hk.n)
	}
	h.Write(gojqOrderFile)
	for _, p := range shellPatches {
		fmt.Fprintf(h, "module %s\n", p.module)
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
})
