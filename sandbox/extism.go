package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/internal/abi"
)

// Extism plugins.
//
// A script of kind "extism" is an Extism plugin (https://extism.org): a
// Wasm module that exports functions taking bytes and returning bytes,
// built with one of Extism's PDKs. [Runtime.CallPlugin] runs one export
// through the Extism Go SDK under the same sandbox as [CompiledModule.Run],
// with these differences, all on the deny side:
//
//   - Files: none. Extism's AllowedPaths mounts host directories with
//     wazero's WithDirMount, which is not a jail (a guest can leave it
//     with "../.."), so plugins get no files at all for now.
//   - Network: Extism's own http_request is never allowed: its client is
//     Go's default one, which follows redirects without re-checking them
//     and reaches private and loopback addresses. A plugin fetches
//     through skillrun's http_fetch host function instead, checked hop by
//     hop against the run's net grant. A refused http_request is audited
//     (kind "net", from the error Extism reports).
//   - Memory: [PluginCall.Memory] caps each of the instance's two linear
//     memories, the plugin's own and Extism's kernel, which holds input,
//     output and variables.
//   - Output: [PluginCall.Output] bounds the bytes the export returns.
//
// skillrun's host functions (docs/contracts/abi.md) are offered to plugins in the
// "skillrun" namespace, with Extism's calling convention: each takes the
// offset of an Extism memory block holding the request and returns the
// offset of a block holding the response envelope (never 0).

// Defaults and fixed limits of [PluginCall].
const (
	// defaultExport is the export CallPlugin calls when PluginCall.Export
	// is empty.
	defaultExport = "run"

	// pluginHTTPMax caps the body of one response to Extism's
	// http_request, like http_fetch's MaxPayload. It must be set: Extism
	// reads a zero MaxHttpResponseBytes in a manifest's Memory as "0
	// bytes", and then every non-empty response fails the call.
	pluginHTTPMax = abi.MaxPayload
	// pluginVarMax caps Extism's plugin variables, for the same reason.
	pluginVarMax = 1 << 20
)

// A PluginCall is one call of an Extism plugin's export: what it gets and
// its limits. Everything not named here is denied. The zero value (and a
// nil *PluginCall) is a valid call of "run" with empty input.
//
// CallPlugin does not modify a PluginCall; calls may share one as long as
// no one modifies it.
type PluginCall struct {
	// Name names the call in errors, such as "upper:run".
	Name string
	// Export is the function to call; "" means "run".
	Export string
	// Input is the plugin's input bytes.
	Input []byte

	// Memory caps each linear memory of the instance, in bytes; 0 means
	// [DefaultMemory]. Past it the call fails with [ErrMemoryLimit].
	Memory uint64
	// Timeout caps the wall time of the call, instantiation included; 0
	// means [DefaultTimeout]. Past it the call fails with [ErrTimeout].
	Timeout time.Duration
	// Output bounds the bytes the export returns; 0 means
	// [DefaultOutput]. Past it the call fails with [ErrOutputLimit] and
	// the output is cut at the limit.
	Output uint64

	// Host serves the plugin's calls to skillrun's host functions, as
	// [RunConfig.Host] does; nil answers each with "unavailable".
	Host HostDispatcher

	// Auditor, if not nil, records every request to the network Extism
	// refused (kind "net", value "host:port"), with the call's ctx.
	Auditor audit.Auditor
}

// A PluginError is a plugin's own failure: its export returned a
// non-zero code or set an error message. The host and the sandbox are
// fine.
type PluginError struct {
	Name    string // PluginCall.Name
	Export  string
	Code    uint32 // what the export returned
	Message string // the plugin's error message, if it set one
}

func (e *PluginError) Error() string {
	msg := fmt.Sprintf("%s: %s returned %d", e.Name, e.Export, e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// pluginCache memoizes compiled plugins by the SHA-256 of their bytes.
// Each entry holds a wazero runtime of its own (Extism makes one per
// compiled plugin); entries live as long as the Runtime. Runtime.Close
// does not release them: CallPlugin after Close releases them all, and
// otherwise wazero's finalizers free their code once the Runtime is
// garbage.
type pluginCache struct {
	mu sync.Mutex
	m  map[[32]byte]*pluginEntry
}

type pluginEntry struct {
	once sync.Once
	cp   *extism.CompiledPlugin
	err  error
}

// CallPlugin calls an export of the Extism plugin wasm with c (nil means
// the zero PluginCall) and returns its output.
//
// The plugin is compiled on its first call and the compiled code kept,
// keyed by its hash, for the Runtime's lifetime; every call gets a fresh
// instance. A plugin's own failure is a [*PluginError]. When the sandbox
// stops it, the error matches [ErrTimeout], [ErrMemoryLimit],
// [ErrOutputLimit] or [ErrTrap], in that order of precedence; a request
// through Extism's http_request is a [*NetRefusedError]. A Result
// accompanies every error but a compile failure; its ExitCode is what the
// export returned.
//
// CallPlugin is safe for concurrent use.
func (r *Runtime) CallPlugin(ctx context.Context, wasm []byte, c *PluginCall) (out []byte, res *Result, err error) {
	var pc PluginCall
	if c != nil {
		pc = *c
	}
	if pc.Export == "" {
		pc.Export = defaultExport
	}
	if pc.Memory == 0 {
		pc.Memory = DefaultMemory
	}
	if pc.Timeout <= 0 {
		pc.Timeout = DefaultTimeout
	}
	if pc.Output == 0 {
		pc.Output = DefaultOutput
	}
	if pc.Name == "" {
		pc.Name = "plugin"
	}
	record := newRecorder(ctx, pc.Auditor)
	if !r.runs.enter() { // Close stops the call and waits for it, as for a run
		r.plugins.closeAll(ctx)
		return nil, nil, fmt.Errorf("%s: %w", pc.Name, errClosed)
	}
	defer r.runs.leave()
	cp, err := r.compilePlugin(ctx, wasm)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pc.Name, err)
	}

	start := time.Now()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(r.stop, func() { cancel(errClosed) })()
	runCtx, cancelTimeout := context.WithTimeoutCause(runCtx, pc.Timeout, errTimeoutCause)
	defer cancelTimeout()
	// Log lines (skillrun's log and Extism's own) spend from the output
	// limit too; what the export returns gets the rest.
	budget := &outputLimit{limit: pc.Output, cancel: cancel}
	runCtx = withHostCall(runCtx, pc.Host, &Caller{out: budget})
	mem := &memoryLimit{limit: pc.Memory}

	res = &Result{}
	out, err = r.callPlugin(runCtx, cp, &pc, mem, budget, res)
	res.Duration = time.Since(start)
	res.PeakMemory = mem.peak.Load()
	out, err = classifyPlugin(ctx, runCtx, &pc, mem, budget, r.closed.Load(), out, res, err, record)
	res.OutputBytes = uint64(len(out))
	r.log.Debug("plugin call", "name", pc.Name, "export", pc.Export, "code", res.ExitCode,
		"took", res.Duration, "peak_memory", res.PeakMemory, "output", res.OutputBytes, "err", err)
	return out, res, err
}

// callPlugin instantiates cp for one call and calls the export. It
// returns Extism's output and error, with the export's code in
// res.ExitCode; a plugin's own error comes back as a *PluginError.
func (r *Runtime) callPlugin(ctx context.Context, cp *extism.CompiledPlugin, pc *PluginCall, mem *memoryLimit,
	budget *outputLimit, res *Result) ([]byte, error) {
	// wazero's defaults deny the rest: no files, no args, no env, output
	// discarded. Clocks and randomness are real, as in Run.
	modCfg := wazero.NewModuleConfig().
		WithSysWalltime().
		WithSysNanotime().
		WithNanosleep(sleeper(ctx)).
		WithRandSource(rand.Reader)
	p, err := cp.Instance(experimental.WithMemoryAllocator(ctx, mem), extism.PluginInstanceConfig{ModuleConfig: modCfg})
	if err != nil {
		return nil, &instantiateError{err}
	}
	defer func() { _ = p.Close(context.WithoutCancel(ctx)) }()
	if mem.refused.Load() {
		return nil, nil // classifyPlugin reports the refusal
	}
	p.SetLogger(func(level extism.LogLevel, msg string) {
		if budget.Spend(len(msg)) {
			r.log.Debug("plugin log", "name", pc.Name, "level", level.String(), "msg", msg)
		}
	})
	p.Timeout = pc.Timeout
	// Extism's own http_request is never allowed: it uses
	// http.DefaultClient, which follows redirects without re-checking
	// them and reaches private and loopback addresses (cloud metadata
	// included). A plugin reaches the network through skillrun's
	// http_fetch host function instead, checked hop by hop against Net.
	p.AllowedHosts = nil
	p.AllowedPaths = nil
	p.MaxHttpResponseBytes = pluginHTTPMax
	p.MaxVarBytes = pluginVarMax
	if !p.FunctionExists(pc.Export) {
		return nil, fmt.Errorf("the plugin exports no function %q", pc.Export)
	}

	code, out, err := p.CallWithContext(ctx, pc.Export, pc.Input)
	res.ExitCode = code
	if err == nil && code != 0 {
		return out, &PluginError{Name: pc.Name, Export: pc.Export, Code: code}
	}
	if err != nil && ctx.Err() == nil {
		// Extism returns the plugin's error message as a plain error after
		// a call that ran to the end; anything else is from wazero.
		if msg := p.GetErrorWithContext(ctx); msg != "" && msg == err.Error() {
			return out, &PluginError{Name: pc.Name, Export: pc.Export, Code: code, Message: msg}
		}
	}
	return out, err
}

// classifyPlugin turns the outcome of a call into CallPlugin's output and
// error; see CallPlugin.
func classifyPlugin(parent, runCtx context.Context, pc *PluginCall, mem *memoryLimit, budget *outputLimit, closed bool,
	out []byte, res *Result, err error, record recorder) ([]byte, error) {
	name := pc.Name
	logged, cut, _ := budget.written()
	if _, ok := errors.AsType[*PluginError](err); !ok && (err != nil || mem.refused.Load() || runCtx.Err() != nil) {
		res.ExitCode = 0 // not the plugin's own answer
	}
	switch {
	case mem.refused.Load():
		return nil, newRunError(name, ErrMemoryLimit, nil,
			"memory limit %s reached (the plugin asked to grow to %s); raise the memory limit if the plugin needs it",
			size(pc.Memory), size(mem.requested.Load()))
	case cut:
		res.ExitCode = 0
		return nil, newRunError(name, ErrOutputLimit, nil,
			"output limit %s reached by the plugin's log lines (log lines and output count together)", size(pc.Output))
	case runCtx.Err() != nil:
		switch cause := context.Cause(runCtx); {
		case errors.Is(cause, errTimeoutCause):
			return nil, newRunError(name, ErrTimeout, nil, "timed out after %v", pc.Timeout)
		case parent.Err() != nil:
			return nil, fmt.Errorf("%s: stopped: %w", name, context.Cause(parent))
		}
	case err != nil && closed:
		return nil, fmt.Errorf("%s: stopped: %w", name, errClosed)
	}
	if pe, ok := errors.AsType[*PluginError](err); ok {
		return nil, pe
	}
	if err != nil {
		msg := err.Error()
		if host, ok := deniedHost(msg); ok {
			record("net", host, audit.Deny, "not granted")
			return nil, &NetRefusedError{Name: name, Host: host}
		}
		if inst, ok := errors.AsType[*instantiateError](err); ok && !strings.Contains(msg, "wasm error:") {
			return nil, fmt.Errorf("%s: instantiating the plugin: %w", name, inst.err)
		}
		if strings.HasPrefix(msg, "the plugin exports no function") {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if !strings.HasPrefix(msg, "wasm error:") {
			msg = "wasm error: " + msg
		}
		return nil, newRunError(name, ErrTrap, err, "trap: %s", msg)
	}
	if room := pc.Output - logged; uint64(len(out)) > room {
		res.ExitCode = 0
		return out[:room], newRunError(name, ErrOutputLimit, nil,
			"output limit %s reached (the plugin returned %s); output was cut there", size(pc.Output), size(uint64(len(out))))
	}
	return out, nil
}

// deniedHost recognizes Extism's denial of an http_request ("HTTP request
// to 'URL' is not allowed") and returns the URL's host:port.
func deniedHost(msg string) (string, bool) {
	_, rest, ok := strings.Cut(msg, "HTTP request to '")
	if !ok {
		return "", false
	}
	raw, _, ok := strings.Cut(rest, "' is not allowed")
	if !ok {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw, true
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return u.Hostname() + ":" + port, true
}

// compilePlugin returns the compiled plugin for wasm, compiling it on
// first use. Concurrent first calls of one plugin compile it once.
func (r *Runtime) compilePlugin(ctx context.Context, wasm []byte) (*extism.CompiledPlugin, error) {
	key := sha256.Sum256(wasm)
	r.plugins.mu.Lock()
	if r.plugins.m == nil {
		r.plugins.m = map[[32]byte]*pluginEntry{}
	}
	e := r.plugins.m[key]
	if e == nil {
		e = &pluginEntry{}
		r.plugins.m[key] = e
	}
	r.plugins.mu.Unlock()

	e.once.Do(func() {
		e.cp, e.err = r.newCompiledPlugin(context.WithoutCancel(ctx), wasm)
	})
	if e.err != nil {
		r.plugins.mu.Lock()
		if r.plugins.m[key] == e {
			delete(r.plugins.m, key) // a later call may try again
		}
		r.plugins.mu.Unlock()
	}
	return e.cp, e.err
}

// newCompiledPlugin compiles wasm with Extism: in a wazero runtime of its
// own that enforces deadlines and shares our compilation cache, with WASI
// (PDKs for Go, Rust and C target it) and skillrun's host functions.
func (r *Runtime) newCompiledPlugin(ctx context.Context, wasm []byte) (*extism.CompiledPlugin, error) {
	if _, err := scanModule(wasm); err != nil { // the bounds of Runtime.Compile (wasmcheck.go)
		if _, ok := errors.AsType[*boundError](err); ok {
			return nil, fmt.Errorf("plugin refused before compiling: %w", err)
		}
		return nil, fmt.Errorf("compiling the Extism plugin: not a valid Wasm module: %w", err)
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(65536)
	if r.cache != nil {
		cfg = cfg.WithCompilationCache(r.cache)
	}
	manifest := extism.Manifest{
		Wasm: []extism.Wasm{extism.WasmData{Data: wasm, Name: "main"}},
		Memory: &extism.ManifestMemory{
			MaxHttpResponseBytes: pluginHTTPMax,
			MaxVarBytes:          pluginVarMax,
		},
	}
	cp, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		RuntimeConfig: cfg,
		EnableWasi:    true,
	}, pluginHostFuncs())
	if err != nil {
		return nil, fmt.Errorf("compiling the Extism plugin: %w", err)
	}
	return cp, nil
}

// pluginHostFuncs are skillrun's host functions for Extism plugins. Each
// finds the call's dispatcher in ctx, as the wazero host module does.
func pluginHostFuncs() []extism.HostFunction {
	funcs := make([]extism.HostFunction, 0, len(abi.Funcs))
	for _, fn := range abi.Funcs {
		f := extism.NewHostFunctionWithStack(fn, func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			stack[0] = pluginCall(ctx, p, fn, stack[0])
		}, []extism.ValueType{extism.ValueTypePTR}, []extism.ValueType{extism.ValueTypePTR})
		f.SetNamespace(abi.Module)
		funcs = append(funcs, f)
	}
	return funcs
}

// pluginCall serves one host function call of a plugin: the request is
// the Extism block at offset, the response a new block. A bad block or an
// oversized request gets an error response; if the response cannot be
// written (the plugin is out of memory), it returns 0.
func pluginCall(ctx context.Context, p *extism.CurrentPlugin, fn string, offset uint64) uint64 {
	hc, _ := ctx.Value(hostCallKey{}).(*hostCall)
	var resp []byte
	n, lenErr := p.Length(offset)
	switch {
	case hc == nil || hc.d == nil:
		resp = errNoHost
	case offset != 0 && lenErr != nil:
		resp = abi.EncodeError(abi.Errorf(abi.CodeInvalid, "%s: the request at %#x is not an Extism memory block", fn, offset))
	case n > abi.MaxPayload:
		resp = abi.EncodeError(abi.Errorf(abi.CodeTooLarge, "%s: the request is %d bytes, over the %d-byte limit", fn, n, abi.MaxPayload))
	default:
		var req []byte
		if offset != 0 {
			var err error
			if req, err = p.ReadBytes(offset); err != nil {
				resp = abi.EncodeError(abi.Errorf(abi.CodeInvalid, "%s: reading the request: %v", fn, err))
				break
			}
		}
		resp = dispatch(ctx, hc.d, fn, req)
		if len(resp) > abi.MaxPayload {
			resp = abi.EncodeError(abi.Errorf(abi.CodeTooLarge, "%s: the response is %d bytes, over the %d-byte limit", fn, len(resp), abi.MaxPayload))
		}
	}
	out, err := p.WriteBytes(resp)
	if err != nil {
		return 0
	}
	return out
}

// closeAll releases every compiled plugin; CallPlugin calls it once the
// Runtime is closed.
func (c *pluginCache) closeAll(ctx context.Context) {
	c.mu.Lock()
	m := c.m
	c.m = nil
	c.mu.Unlock()
	for _, e := range m {
		e.once.Do(func() { e.err = errClosed })
		if e.cp != nil {
			_ = e.cp.Close(context.WithoutCancel(ctx))
		}
	}
}
