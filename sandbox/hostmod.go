package sandbox

import (
	"context"
	"fmt"
	"slices"

	"github.com/tetratelabs/wazero/api"

	"github.com/skillrun/skillrun/internal/abi"
)

// A HostDispatcher serves the calls a module makes to skillrun's host
// functions (the "skillrun" import module, docs/contracts/abi.md): fn is the function's
// name, req its request, and the result is the response envelope.
// A *host.Env (package host) is the usual one. Dispatch must not panic; it is called
// from the goroutine running the module, one call at a time per run.
type HostDispatcher interface {
	Dispatch(ctx context.Context, fn string, req []byte) []byte
}

// hostCallKey is the ctx key of a run's *hostCall.
type hostCallKey struct{}

// hostCall is the per-run state of the host functions: the dispatcher
// and the response waiting for take. A run calls host functions from one
// goroutine, so it needs no lock; runs never share one.
type hostCall struct {
	d       HostDispatcher
	pending []byte
	has     bool
}

// withHostCall returns ctx carrying a run's host function state, the
// run's output budget for the host functions that produce output (log,
// output): every byte a guest produces, on any channel, counts against
// the one limit; and the run as the caller of the runs its host
// functions start ([CallerOf]).
func withHostCall(ctx context.Context, d HostDispatcher, caller *Caller) context.Context {
	ctx = abi.WithOutputBudget(ctx, caller.out)
	ctx = context.WithValue(ctx, callerKey{}, caller)
	return context.WithValue(ctx, hostCallKey{}, &hostCall{d: d})
}

// errNoHost answers every call of a run without a HostDispatcher.
var errNoHost = abi.EncodeError(abi.Errorf(abi.CodeUnavailable,
	"this run has no host functions (RunConfig.Host is nil)"))

const valI32 = api.ValueTypeI32

// instantiateHostModule instantiates the "skillrun" host module in r.wr
// once; every run finds its dispatcher in ctx.
func (r *Runtime) instantiateHostModule(ctx context.Context) error {
	b := r.wr.NewHostModuleBuilder(abi.Module)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
		stack[0] = api.EncodeI32(abi.Version)
	}), nil, []api.ValueType{valI32}).Export(abi.FuncABIVersion)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(take),
		[]api.ValueType{valI32, valI32}, []api.ValueType{valI32}).Export(abi.FuncTake)
	for _, fn := range abi.Funcs {
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			stack[0] = api.EncodeI32(call(ctx, mod, fn, api.DecodeU32(stack[0]), api.DecodeU32(stack[1])))
		}), []api.ValueType{valI32, valI32}, []api.ValueType{valI32}).Export(fn)
	}
	m, err := b.Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("instantiating the %s host module: %w", abi.Module, err)
	}
	r.hostFuncs = m.ExportedFunctionDefinitions()
	return nil
}

// call serves a call of the request-taking host function fn: it reads the
// request from the module's memory, dispatches it and keeps the response
// for take. It returns the response's length. A request out of the
// module's memory or over abi.MaxPayload gets an error response, never a
// trap or a panic.
func call(ctx context.Context, mod api.Module, fn string, ptr, size uint32) int32 {
	hc, _ := ctx.Value(hostCallKey{}).(*hostCall)
	var resp []byte
	switch {
	case hc == nil || hc.d == nil:
		resp = errNoHost
	case size > abi.MaxPayload:
		resp = abi.EncodeError(abi.Errorf(abi.CodeTooLarge, "%s: the request is %d bytes, over the %d-byte limit", fn, size, abi.MaxPayload))
	default:
		mem := mod.Memory()
		var req []byte
		ok := size == 0
		if mem != nil {
			req, ok = mem.Read(ptr, size)
		}
		if !ok {
			var memSize uint32
			if mem != nil {
				memSize = mem.Size()
			}
			resp = abi.EncodeError(abi.Errorf(abi.CodeInvalid, "%s: the request (%d bytes at %#x) is outside the module's memory of %d bytes", fn, size, ptr, memSize))
			break
		}
		resp = dispatch(ctx, hc.d, fn, append([]byte(nil), req...))
		if len(resp) > abi.MaxPayload {
			resp = abi.EncodeError(abi.Errorf(abi.CodeTooLarge, "%s: the response is %d bytes, over the %d-byte limit", fn, len(resp), abi.MaxPayload))
		}
	}
	if hc != nil {
		hc.pending, hc.has = resp, true
	}
	return int32(len(resp))
}

// take copies the waiting response to the module's memory at ptr, if it
// fits in capacity bytes, and returns its length, or a negative
// abi.Take* code.
func take(ctx context.Context, mod api.Module, stack []uint64) {
	ptr, capacity := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	hc, _ := ctx.Value(hostCallKey{}).(*hostCall)
	var n int32
	switch {
	case hc == nil || !hc.has:
		n = abi.TakeNoResponse
	case uint64(len(hc.pending)) > uint64(capacity):
		n = abi.TakeTooSmall
	case mod.Memory() == nil || !mod.Memory().Write(ptr, hc.pending):
		n = abi.TakeOutOfBounds
	default:
		n = int32(len(hc.pending))
		hc.pending, hc.has = nil, false
	}
	stack[0] = api.EncodeI32(n)
}

// checkHostImport checks an import of the skillrun module against the
// host functions; it returns nil or the problem.
func (r *Runtime) checkHostImport(fn api.FunctionDefinition) error {
	mod, name, _ := fn.Import()
	want, ok := r.hostFuncs[name]
	switch {
	case !ok:
		return fmt.Errorf("the module imports function %s.%s, which is not a skillrun host function (ABI version %d; see ABI.md)", mod, name, abi.Version)
	case !sameSignature(fn, want):
		return fmt.Errorf("the module imports function %s.%s as %s, but its signature is %s",
			mod, name, signature(fn), signature(want))
	}
	return nil
}

func sameSignature(a, b api.FunctionDefinition) bool {
	return slices.Equal(a.ParamTypes(), b.ParamTypes()) && slices.Equal(a.ResultTypes(), b.ResultTypes())
}

// dispatch calls d.Dispatch, turning a panic (a bug in the dispatcher)
// into an internal error response, so that the run goes on.
func dispatch(ctx context.Context, d HostDispatcher, fn string, req []byte) (resp []byte) {
	defer func() {
		if v := recover(); v != nil {
			resp = abi.EncodeError(abi.Errorf(abi.CodeInternal, "%s: the host failed: %v", fn, v))
		}
	}()
	return d.Dispatch(ctx, fn, req)
}
