// Command js is skillrun's JavaScript interpreter guest: a WASI preview1
// command module (GOOS=wasip1) that runs a script with goja, a pure-Go
// ECMAScript 5.1+ engine. skillrun runs it for scripts of kind "source"
// whose file ends in .js, .cjs or .mjs:
//
//	js /skill/scripts/report.js [ARGS...]
//
// The script runs as a CommonJS module (module, exports, require,
// __filename, __dirname); TypeScript files (.ts, .mts, .cts) have their
// types stripped and ES modules (import/export) are rewritten to
// CommonJS first, by esbuild inside the guest (transform.go). The
// `js -e CODE` and `js -p CODE` evaluate CODE as node does.
//
// The script runs in goja_nodejs's event loop with Node's built-in
// modules (node.go: goja_nodejs's Buffer and URL; crypto, zlib and os
// backed by Go's standard library; events, assert, util, readline,
// stream, timers/promises and the globals written in JavaScript under
// node/), fs over the WASI file system, which holds only the mounts the
// grant gives (fs.go), path (nodepath.go), fetch through skillrun's
// http_fetch host function (only hosts the net grant names answer), and
// child_process, whose execSync, execFileSync and spawnSync start node,
// python3, sh and the sandboxed shell's commands as other runs in the
// same sandbox (childproc.go). require("./x") loads a file of the skill;
// a bare name loads a vendored package from node_modules beside the
// script or in the skill.
//
// Modules that need what the sandbox cannot give (cluster, net, http,
// worker_threads, ...) fail at require with a message that says so.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/eventloop"

	"github.com/skillrun/skillrun/guest"
)

// unavailable are Node modules the sandbox cannot provide, with why.
var unavailable = map[string]string{
	"cluster":        "there are no subprocesses in the sandbox",
	"worker_threads": "there are no threads in the sandbox",
	"net":            "there are no sockets in the sandbox; use fetch(), which goes through skillrun's http_fetch when net is granted",
	"tls":            "there are no sockets in the sandbox; use fetch(), which goes through skillrun's http_fetch when net is granted",
	"dgram":          "there are no sockets in the sandbox",
	"dns":            "there are no sockets in the sandbox; use fetch(), which goes through skillrun's http_fetch when net is granted",
	"http":           "there are no sockets in the sandbox; use fetch(), which goes through skillrun's http_fetch when net is granted",
	"https":          "there are no sockets in the sandbox; use fetch(), which goes through skillrun's http_fetch when net is granted",
	"http2":          "there are no sockets in the sandbox; use fetch(), which goes through skillrun's http_fetch when net is granted",
	"vm":             "it is not provided by skillrun's JavaScript interpreter",
}

// exitCode is a process.exit in flight: it unwinds the script.
type exitCode int

type interp struct {
	vm      *goja.Runtime
	stdout  *bufio.Writer
	stderr  *bufio.Writer
	modules map[string]*goja.Object // loaded CommonJS modules by path
	stdin   []byte
	stdinOK bool

	loop         *eventloop.EventLoop
	core         map[string]goja.Value // built-in modules loaded (node.go)
	rawImmediate goja.Callable         // the event loop's own setImmediate
	rejected     map[*goja.Promise]int // rejected with no handler yet, in order
	rejectSeq    int
	exiting      bool // process 'exit' listeners ran
}

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	in := &interp{
		stdout:  bufio.NewWriter(stdout),
		stderr:  bufio.NewWriter(stderr),
		modules: map[string]*goja.Object{},
		core:    map[string]goja.Value{},
	}
	defer func() { _ = in.stdout.Flush() }()
	defer func() { _ = in.stderr.Flush() }()
	if len(args) < 2 || isEvalFlag(args[1]) && len(args) < 3 {
		fmt.Fprintln(in.stderr, "usage: js (SCRIPT | -e CODE | -p CODE) [ARGS...]")
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(exitCode)
			if !ok {
				panic(r)
			}
			code = int(c)
		}
	}()
	// The script runs in an event loop (goja_nodejs): its timers, and the
	// promise jobs between them, run until none is left, as in Node. An
	// uncaught error, in the script or a callback, or process.exit ends
	// it (a panic of exitCode).
	in.loop = newLoop()
	in.loop.Run(func(vm *goja.Runtime) {
		in.vm = vm
		if c := in.start(args, stdin); c != 0 {
			panic(exitCode(c))
		}
	})
	if c, ok := in.unhandledRejection(); ok {
		in.emitExit(c)
		return c
	}
	code = in.pendingExitCode()
	in.emitExit(code)
	return in.pendingExitCode()
}

// emitExit emits process's 'exit' event once, as Node does when the
// script ends or calls process.exit.
func (in *interp) emitExit(code int) {
	if in.exiting {
		return
	}
	in.exiting = true
	p := in.vm.Get("process").ToObject(in.vm)
	if emit, ok := goja.AssertFunction(p.Get("emit")); ok {
		if _, err := emit(p, in.vm.ToValue("exit"), in.vm.ToValue(code)); err != nil {
			panic(exitCode(in.report(err)))
		}
	}
}

// start sets up the globals and runs the script (or -e/-p code), and
// returns a non-zero exit code when it failed.
func (in *interp) start(args []string, stdin io.Reader) int {
	in.vm.SetFieldNameMapper(goja.TagFieldNameMapper("json", true))
	script := path.Clean(args[1])
	var eval func() goja.Value
	if isEvalFlag(args[1]) {
		// node -e CODE ARGS: process.argv is [node, ARGS...].
		eval = in.evalFunc(args[2], args[1] == "-p" || args[1] == "--print")
		args = append([]string{args[0]}, args[3:]...)
	}
	if err := in.setup(args, stdin); err != nil {
		fmt.Fprintln(in.stderr, "js:", err)
		return 70
	}
	in.trackRejections()
	// Load the script through a JavaScript call, so errors thrown while
	// loading (a Go panic of a JavaScript value) come back as errors.
	loader := func() goja.Value { return in.require(script, "/") }
	if eval != nil {
		loader = eval
	}
	load, _ := goja.AssertFunction(in.vm.ToValue(loader))
	if _, err := load(goja.Undefined()); err != nil {
		c := in.report(err)
		in.emitExit(c)
		return c
	}
	in.checkRejections()
	return 0
}

// isEvalFlag reports whether a is node's -e/--eval or -p/--print.
func isEvalFlag(a string) bool {
	return a == "-e" || a == "--eval" || a == "-p" || a == "--print"
}

// evalFunc runs code as node -e does: in the global scope, with require,
// module, exports, __filename and __dirname as globals and requires
// relative to the working folder; with print (-p), the value of the last
// expression is printed.
func (in *interp) evalFunc(code string, print bool) func() goja.Value {
	return func() goja.Value {
		dir := workdir()
		module := in.vm.NewObject()
		set(module, "exports", in.vm.NewObject())
		setGlobal(in.vm, "module", module)
		setGlobal(in.vm, "exports", module.Get("exports"))
		setGlobal(in.vm, "require", func(name string) goja.Value { return in.require(name, dir) })
		setGlobal(in.vm, "__filename", path.Join(dir, "[eval]"))
		setGlobal(in.vm, "__dirname", dir)
		v, err := in.vm.RunScript("[eval]", code)
		if err != nil {
			panic(err)
		}
		if print {
			_, _ = in.stdout.WriteString(in.format(v, true) + "\n")
		}
		return v
	}
}

// report prints an uncaught error the way node does and returns 1.
func (in *interp) report(err error) int {
	if c, ok := errors.AsType[*goja.InterruptedError](err); ok {
		if e, ok := c.Value().(exitCode); ok {
			return int(e)
		}
	}
	if ex, ok := errors.AsType[*goja.Exception](err); ok {
		if v, ok := ex.Value().Export().(exitCode); ok {
			return int(v)
		}
		msg := ex.String()
		if o, ok := ex.Value().(*goja.Object); ok {
			if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
				msg = st.String()
			}
		}
		fmt.Fprintln(in.stderr, "Uncaught", strings.TrimSpace(msg))
		return 1
	}
	fmt.Fprintln(in.stderr, "Uncaught", err)
	return 1
}

func (in *interp) pendingExitCode() int {
	p := in.vm.Get("process").ToObject(in.vm)
	if v := p.Get("exitCode"); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
		return int(v.ToInteger())
	}
	return 0
}

// throw raises a JavaScript Error with msg.
func (in *interp) throw(format string, a ...any) {
	panic(in.jsError(fmt.Sprintf(format, a...)))
}

func (in *interp) setup(args []string, stdin io.Reader) error {
	vm := in.vm
	process := vm.NewObject()
	argv := append([]string{"js"}, args[1:]...)
	set(process, "argv", argv)
	env := vm.NewObject()
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			set(env, k, v)
		}
	}
	set(process, "env", env)
	set(process, "platform", "wasi")
	set(process, "exit", func(c goja.FunctionCall) goja.Value {
		code := in.pendingExitCode()
		if len(c.Arguments) > 0 && !goja.IsUndefined(c.Argument(0)) {
			code = int(c.Argument(0).ToInteger())
		}
		set(process, "exitCode", code)
		in.emitExit(code)
		_ = in.stdout.Flush()
		_ = in.stderr.Flush()
		panic(exitCode(code))
	})
	set(process, "cwd", workdir)
	set(process, "chdir", func(dir string) {
		if err := os.Chdir(fsPath(dir)); err != nil {
			in.fsError("chdir", dir, err)
		}
	})
	stream := func(w *bufio.Writer) *goja.Object {
		o := vm.NewObject()
		set(o, "write", func(s string) bool { _, err := w.WriteString(s); return err == nil })
		return o
	}
	set(process, "stdout", stream(in.stdout))
	set(process, "stderr", stream(in.stderr))
	setGlobal(vm, "process", process)

	in.stdinRead(stdin)
	setGlobal(vm, "fetch", in.fetch)
	in.rawImmediate, _ = goja.AssertFunction(vm.Get("setImmediate"))
	return in.setupNode()
}

// stdinRead keeps stdin to read lazily on first use of /dev/stdin.
func (in *interp) stdinRead(r io.Reader) {
	setGlobal(in.vm, "__stdin", func() string {
		if !in.stdinOK {
			in.stdin, _ = io.ReadAll(r)
			in.stdinOK = true
		}
		return string(in.stdin)
	})
}

// format renders a console argument: strings as they are, other values
// as JSON where they have a JSON form.
func (in *interp) format(v goja.Value, first bool) string {
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	if goja.IsNull(v) {
		return "null"
	}
	switch v.ExportType().Kind().String() {
	case "string":
		return v.String()
	}
	if o, ok := v.(*goja.Object); ok {
		if o.ClassName() == "Error" {
			if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
				return st.String()
			}
			return v.String()
		}
		if _, isFn := goja.AssertFunction(v); isFn {
			return "[Function]"
		}
		stringify, _ := goja.AssertFunction(in.vm.Get("JSON").ToObject(in.vm).Get("stringify"))
		if s, err := stringify(goja.Undefined(), v); err == nil && !goja.IsUndefined(s) {
			return s.String()
		}
	}
	return v.String()
}

// require resolves name from the folder dir and returns module.exports.
// It throws (panics with) a JavaScript error when the module cannot load.
func (in *interp) require(name, dir string) goja.Value {
	bare := strings.TrimPrefix(name, "node:")
	if v, ok := in.coreModule(bare); ok {
		return v
	}
	if why, ok := unavailable[bare]; ok {
		in.throw("skillrun: require(%q) is not available: %s", name, why)
	}
	file, err := resolve(name, dir)
	if err != nil {
		panic(in.vm.NewGoError(err))
	}
	if m, ok := in.modules[file]; ok {
		return m.Get("exports")
	}
	src, err := os.ReadFile(file)
	if err != nil {
		in.throw("cannot load %s: %v", file, err)
	}
	module := in.vm.NewObject()
	exports := in.vm.NewObject()
	set(module, "exports", exports)
	in.modules[file] = module
	code := string(src)
	if strings.HasPrefix(code, "#!") {
		code = "//" + code
	}
	if strings.HasSuffix(file, ".json") {
		v, err := in.vm.RunString("(" + code + ")")
		if err != nil {
			panic(err)
		}
		set(module, "exports", v)
		return v
	}
	code, err = toCommonJS(file, code)
	if err != nil {
		in.throw("SyntaxError: %v", err)
	}
	if strings.Contains(code, importMetaURL) {
		// import.meta.url of an ES module (transform.go).
		code = "var " + importMetaURL + " = require('url').pathToFileURL(__filename).href;" + code
	}
	fnv, err := in.vm.RunScript(file, "(function (exports, require, module, __filename, __dirname) {"+code+"\n})")
	if err != nil {
		panic(err)
	}
	fn, _ := goja.AssertFunction(fnv)
	fdir := path.Dir(file)
	req := func(name string) goja.Value { return in.require(name, fdir) }
	if _, err := fn(goja.Undefined(), exports, in.vm.ToValue(req), module, in.vm.ToValue(file), in.vm.ToValue(fdir)); err != nil {
		panic(err)
	}
	return module.Get("exports")
}

// resolve finds the file for a require of name from dir, as Node does
// for files: as given, with .js or .json, or as a folder's index.js or
// package.json "main"; bare names in node_modules folders up from dir.
func resolve(name, dir string) (string, error) {
	if strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") {
		p := name
		if !path.IsAbs(p) {
			p = path.Join(dir, name)
		}
		if f, ok := resolveFile(p); ok {
			return f, nil
		}
		return "", fmt.Errorf("cannot find module %q (from %s)", name, dir)
	}
	for d := dir; ; d = path.Dir(d) {
		if f, ok := resolveFile(path.Join(d, "node_modules", name)); ok {
			return f, nil
		}
		if d == "/" {
			break
		}
	}
	for _, d := range []string{"/skill/node_modules", "/skill/lib"} {
		if f, ok := resolveFile(path.Join(d, name)); ok {
			return f, nil
		}
	}
	return "", fmt.Errorf("cannot find module %q: skillrun's JavaScript interpreter provides Node's built-in modules (fs, path, crypto, url, util, events, ...); other packages must be vendored as plain JavaScript under the skill's node_modules/ or lib/ (compiled addons cannot load in the sandbox)", name)
}

func resolveFile(p string) (string, bool) {
	isFile := func(f string) bool {
		fi, err := os.Stat(f)
		return err == nil && fi.Mode().IsRegular()
	}
	for _, f := range []string{p, p + ".js", p + ".cjs", p + ".mjs", p + ".ts", p + ".json"} {
		if isFile(f) {
			return f, true
		}
	}
	if b, err := os.ReadFile(path.Join(p, "package.json")); err == nil {
		var pkg struct {
			Main string `json:"main"`
		}
		if json.Unmarshal(b, &pkg) == nil && pkg.Main != "" {
			if f, ok := resolveFile(path.Join(p, pkg.Main)); ok {
				return f, true
			}
		}
	}
	for _, index := range []string{"index.js", "index.ts"} {
		if f := path.Join(p, index); isFile(f) {
			return f, true
		}
	}
	return "", false
}

// fsPath makes a script's path absolute, relative to the working folder.
func fsPath(p string) string {
	if !path.IsAbs(p) {
		p = path.Join(workdir(), p)
	}
	return path.Clean(p)
}

// workdir is the working folder: the one skillrun gives the run (PWD,
// which Go's WASI port starts in; the workspace when it is mounted),
// else "/".
func workdir() string {
	if d, err := os.Getwd(); err == nil && path.IsAbs(d) {
		return d
	}
	return "/"
}

// fetch is a synchronous fetch() returning a settled Promise, through the
// http_fetch host function.
func (in *interp) fetch(c goja.FunctionCall) goja.Value {
	vm := in.vm
	req := &guest.FetchRequest{URL: c.Argument(0).String(), Method: "GET"}
	if opts, ok := c.Argument(1).(*goja.Object); ok {
		if m := opts.Get("method"); m != nil && !goja.IsUndefined(m) {
			req.Method = strings.ToUpper(m.String())
		}
		if h, ok := opts.Get("headers").(*goja.Object); ok {
			req.Headers = map[string]string{}
			for _, k := range h.Keys() {
				req.Headers[k] = h.Get(k).String()
			}
		}
		if b := opts.Get("body"); b != nil && !goja.IsUndefined(b) && !goja.IsNull(b) {
			req.Body = []byte(b.String())
		}
	}
	p, resolveP, reject := vm.NewPromise()
	res, err := guest.Fetch(req)
	if err != nil {
		_ = reject(vm.NewGoError(fmt.Errorf("fetch %s: %w", req.URL, err)))
		return vm.ToValue(p)
	}
	body := string(res.Body)
	r := vm.NewObject()
	set(r, "status", res.Status)
	set(r, "ok", res.Status >= 200 && res.Status < 300)
	set(r, "url", req.URL)
	headers := vm.NewObject()
	lower := map[string]string{}
	for k, v := range res.Headers {
		lower[strings.ToLower(k)] = v
	}
	set(headers, "get", func(k string) goja.Value {
		if v, ok := lower[strings.ToLower(k)]; ok {
			return vm.ToValue(v)
		}
		return goja.Null()
	})
	set(r, "headers", headers)
	settled := func(v goja.Value, err error) goja.Value {
		q, res, rej := vm.NewPromise()
		if err != nil {
			_ = rej(vm.NewGoError(err))
		} else {
			_ = res(v)
		}
		return vm.ToValue(q)
	}
	set(r, "text", func() goja.Value { return settled(vm.ToValue(body), nil) })
	set(r, "json", func() goja.Value {
		parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
		v, err := parse(goja.Undefined(), vm.ToValue(body))
		return settled(v, err)
	})
	_ = resolveP(r)
	return vm.ToValue(p)
}

// set sets a property of an ordinary object, which cannot fail.
func set(o *goja.Object, name string, v any) {
	if err := o.Set(name, v); err != nil {
		panic(err)
	}
}

// setGlobal sets a global variable, which cannot fail.
func setGlobal(vm *goja.Runtime, name string, v any) {
	if err := vm.Set(name, v); err != nil {
		panic(err)
	}
}
