package main

import (
	"embed"
	"encoding/base64"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/buffer"
	"github.com/dop251/goja_nodejs/eventloop"
	"github.com/dop251/goja_nodejs/require"
	"github.com/dop251/goja_nodejs/url"
)

// Node's built-in modules. From github.com/dop251/goja_nodejs (by goja's
// author): the event loop (timers, promise jobs between them), Buffer,
// and the WHATWG URL and URLSearchParams. Backed by Go's standard
// library here: crypto (nodecrypto.go), zlib (nodezlib.go), os
// (nodeos.go). Written in JavaScript here (node/*.js, embedded): events,
// assert, util (format and inspect as Node prints), readline, stream
// basics, timers/promises, string_decoder, url's file URL and legacy
// functions, and the globals (node/prelude.js). fs, path, process and
// child_process are main.go's and childproc.go's.

//go:embed node/*.js
var nodeJS embed.FS

// nodeJSModules are the built-in modules written in JavaScript, by the
// name a script requires and their file under node/.
var nodeJSModules = map[string]string{
	"events": "events.js", "assert": "assert.js", "util": "util.js", "readline": "readline.js",
	"stream": "stream.js", "timers/promises": "timers_promises.js", "string_decoder": "string_decoder.js",
	"url": "url.js",
}

// newLoop returns the event loop a run's script runs in, with a
// goja_nodejs registry for its modules' own requires.
func newLoop() *eventloop.EventLoop {
	return eventloop.NewEventLoop(eventloop.WithRegistry(require.NewRegistry()), eventloop.EnableConsole(false))
}

// coreModule returns the built-in module name (without "node:"), or false
// when there is none by that name.
func (in *interp) coreModule(name string) (goja.Value, bool) {
	if v, ok := in.core[name]; ok {
		return v, true
	}
	var v goja.Value
	switch name {
	case "fs":
		v = in.fsModule()
	case "fs/promises":
		m, _ := in.coreModule("fs")
		v = m.ToObject(in.vm).Get("promises")
	case "path", "path/posix":
		v = in.pathModule()
	case "process":
		v = in.vm.Get("process")
	case "child_process":
		v = in.childProcessModule()
	case "buffer":
		v = require.Require(in.vm, buffer.ModuleName)
	case "__url_native":
		v = require.Require(in.vm, url.ModuleName)
	case "crypto":
		v = in.cryptoModule()
	case "os":
		v = in.osModule()
	case "zlib":
		v = in.zlibModule()
	case "assert/strict":
		a, _ := in.coreModule("assert")
		v = a.ToObject(in.vm).Get("strict")
	case "stream/promises":
		s, _ := in.coreModule("stream")
		v = s.ToObject(in.vm).Get("promises")
	case "timers":
		o := in.vm.NewObject()
		for _, n := range []string{"setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"} {
			set(o, n, in.vm.Get(n))
		}
		v = o
	case "module":
		o := in.vm.NewObject()
		set(o, "createRequire", func(from string) goja.Value {
			from = strings.TrimPrefix(from, "file://")
			dir := path.Dir(from)
			return in.vm.ToValue(func(name string) goja.Value { return in.require(name, dir) })
		})
		set(o, "builtinModules", []string{"assert", "buffer", "child_process", "crypto", "events", "fs", "module", "os", "path", "process", "readline", "stream", "string_decoder", "timers", "url", "util", "zlib"})
		v = o
	default:
		file, ok := nodeJSModules[name]
		if !ok {
			return nil, false
		}
		v = in.bundledModule(name, file)
	}
	in.core[name] = v
	return v, true
}

// bundledModule runs node/file as a CommonJS module and returns its
// exports; its requires are of built-in modules.
func (in *interp) bundledModule(name, file string) goja.Value {
	src, err := nodeJS.ReadFile("node/" + file)
	if err != nil {
		panic(err)
	}
	module := in.vm.NewObject()
	exports := in.vm.NewObject()
	set(module, "exports", exports)
	// A module that requires itself in a cycle (util and assert) gets
	// what it has exported so far, as in Node.
	in.core[name] = exports
	fnv, err := in.vm.RunScript("node:"+name, "(function (exports, require, module) {"+string(src)+"\n})")
	if err != nil {
		panic(err)
	}
	fn, _ := goja.AssertFunction(fnv)
	req := func(n string) goja.Value { return in.require(n, "/") }
	if _, err := fn(goja.Undefined(), exports, in.vm.ToValue(req), module); err != nil {
		delete(in.core, name)
		panic(err)
	}
	return module.Get("exports")
}

// setupNode sets the globals of node/prelude.js over the ones setup made
// (process, fetch).
func (in *interp) setupNode() error {
	// goja_nodejs's modules are required through the global require of
	// its registry (require.Require): load them while it is the
	// registry's (node -e code gets a require of its own).
	buffer.Enable(in.vm)
	url.Enable(in.vm)
	in.core["buffer"] = require.Require(in.vm, buffer.ModuleName)
	in.core["__url_native"] = require.Require(in.vm, url.ModuleName)
	start := time.Now()
	host := in.vm.NewObject()
	set(host, "encode", func(b goja.Value, enc string) goja.Value { return in.encodeBytes(in.bytesOf(b, ""), enc) })
	set(host, "decode", func(s, enc string) goja.Value {
		b, err := decodeString(s, enc)
		if err != nil {
			in.throw("%v", err)
		}
		return buffer.WrapBytes(in.vm, b)
	})
	set(host, "write", func(fd int, s string) {
		if fd == 2 {
			_ = in.stdout.Flush()
			_, _ = in.stderr.WriteString(s)
			return
		}
		_, _ = in.stdout.WriteString(s)
	})
	set(host, "call", in.callback)
	set(host, "nanotime", func() int64 { return int64(time.Since(start)) })
	set(host, "stdin", func() string {
		s, _ := goja.AssertFunction(in.vm.Get("__stdin"))
		v, _ := s(goja.Undefined())
		return v.String()
	})
	set(host, "atob", func(s string) string {
		b, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' {
				return -1
			}
			return r
		}, s))
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
		}
		if err != nil {
			panic(in.jsError("InvalidCharacterError: The string to be decoded is not correctly encoded"))
		}
		return latin1(b)
	})
	set(host, "btoa", func(s string) string {
		b := make([]byte, 0, len(s))
		for _, r := range s {
			if r > 0xff {
				panic(in.jsError("InvalidCharacterError: Invalid character"))
			}
			b = append(b, byte(r))
		}
		return base64.StdEncoding.EncodeToString(b)
	})
	req := func(n string) goja.Value { return in.require(n, "/") }
	for _, file := range []string{"buffer_ext.js", "prelude.js"} {
		src, err := nodeJS.ReadFile("node/" + file)
		if err != nil {
			return err
		}
		fnv, err := in.vm.RunScript("node:"+file, string(src))
		if err != nil {
			return err
		}
		fn, _ := goja.AssertFunction(fnv)
		if _, err := fn(goja.Undefined(), host, in.vm.ToValue(req)); err != nil {
			return err
		}
	}
	return nil
}

// jsError is a JavaScript Error with message msg (name "Error", as
// Node's own errors are; goja's Go errors are named GoError).
func (in *interp) jsError(msg string) *goja.Object {
	e, err := in.vm.New(in.vm.Get("Error"), in.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return e
}

// latin1 turns bytes into the string of the code points they are.
func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// callback calls fn with args from the event loop (a timer, an
// immediate, a microtask): an error it throws is uncaught, and ends the
// script with exit code 1 after printing it, as in Node.
func (in *interp) callback(fn goja.Callable, args []goja.Value) {
	// A rejection the last macrotask left unhandled ends the script
	// before the next one runs, as in Node.
	in.checkRejections()
	if fn == nil {
		return
	}
	if _, err := fn(goja.Undefined(), args...); err != nil {
		panic(exitCode(in.report(err)))
	}
}

// checkRejections ends the script (exit code 1) when a promise was
// rejected with no handler by what ran so far.
func (in *interp) checkRejections() {
	if c, ok := in.unhandledRejection(); ok {
		in.emitExit(c)
		panic(exitCode(c))
	}
}

// trackRejections records promises rejected with no handler, which end
// the script as uncaught errors when the event loop is done.
func (in *interp) trackRejections() {
	in.rejected = map[*goja.Promise]int{}
	in.vm.SetPromiseRejectionTracker(func(p *goja.Promise, op goja.PromiseRejectionOperation) {
		switch op {
		case goja.PromiseRejectionReject:
			in.rejectSeq++
			in.rejected[p] = in.rejectSeq
		case goja.PromiseRejectionHandle:
			delete(in.rejected, p)
		}
	})
}

// unhandledRejection reports the first promise still rejected with no
// handler, as Node reports an unhandled rejection (exit code 1), and
// whether there was one.
func (in *interp) unhandledRejection() (int, bool) {
	var first *goja.Promise
	for p, seq := range in.rejected {
		if first == nil || seq < in.rejected[first] {
			first = p
		}
	}
	if first == nil {
		return 0, false
	}
	reason := first.Result()
	if o, ok := reason.(*goja.Object); ok {
		if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
			fmt.Fprintln(in.stderr, "Uncaught", strings.TrimSpace(st.String()))
			return 1, true
		}
	}
	fmt.Fprintln(in.stderr, "Uncaught", in.format(reason, false))
	return 1, true
}
