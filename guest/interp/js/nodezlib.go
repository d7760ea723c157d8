package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/buffer"
)

// maxInflated bounds what an inflate may produce, against a compression
// bomb: the sandbox's memory limit would end the run anyway, this ends
// it with Node's error instead.
const maxInflated = 1 << 30

// Node's zlib module, its whole-buffer forms (gzipSync, gunzip with a
// callback, ...), by Go's compress packages. Brotli and the streaming
// classes are not there.
func (in *interp) zlibModule() goja.Value {
	vm := in.vm
	o := vm.NewObject()
	level := func(opts goja.Value) int {
		if op, ok := opts.(*goja.Object); ok {
			if l := op.Get("level"); l != nil && !goja.IsUndefined(l) {
				return int(l.ToInteger())
			}
		}
		return flate.DefaultCompression
	}
	compress := func(newW func(io.Writer, int) (io.WriteCloser, error)) func(goja.Value, goja.Value) []byte {
		return func(data, opts goja.Value) []byte {
			var b bytes.Buffer
			w, err := newW(&b, level(opts))
			if err != nil {
				in.throw("%v", err)
			}
			if _, err := w.Write(in.bytesOf(data, "")); err != nil {
				in.throw("%v", err)
			}
			if err := w.Close(); err != nil {
				in.throw("%v", err)
			}
			return b.Bytes()
		}
	}
	decompress := func(newR func(io.Reader) (io.Reader, error), what string) func(goja.Value, goja.Value) []byte {
		return func(data, _ goja.Value) []byte {
			r, err := newR(bytes.NewReader(in.bytesOf(data, "")))
			if err != nil {
				in.zlibError(what)
			}
			out, err := io.ReadAll(io.LimitReader(r, maxInflated+1))
			if err != nil {
				in.zlibError(what)
			}
			if len(out) > maxInflated {
				in.throw("RangeError: Cannot create a Buffer larger than %d bytes", maxInflated)
			}
			return out
		}
	}
	ops := map[string]func(goja.Value, goja.Value) []byte{
		"gzip":       compress(func(w io.Writer, l int) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, l) }),
		"deflate":    compress(func(w io.Writer, l int) (io.WriteCloser, error) { return zlib.NewWriterLevel(w, l) }),
		"deflateRaw": compress(func(w io.Writer, l int) (io.WriteCloser, error) { return flate.NewWriter(w, l) }),
		"gunzip":     decompress(func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }, "incorrect header check"),
		"inflate":    decompress(func(r io.Reader) (io.Reader, error) { return zlib.NewReader(r) }, "incorrect header check"),
		"inflateRaw": decompress(func(r io.Reader) (io.Reader, error) { return flate.NewReader(r), nil }, "invalid stored block lengths"),
		"unzip": decompress(func(r io.Reader) (io.Reader, error) {
			br := &peekReader{r: r}
			head := br.peek(2)
			if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
				return gzip.NewReader(br)
			}
			return zlib.NewReader(br)
		}, "incorrect header check"),
	}
	for name, op := range ops {
		fn := op
		set(o, name+"Sync", func(data, opts goja.Value) goja.Value { return buffer.WrapBytes(vm, fn(data, opts)) })
		set(o, name, func(c goja.FunctionCall) goja.Value {
			cb, opts := c.Argument(1), goja.Undefined()
			if !isFunc(cb) {
				cb, opts = c.Argument(2), c.Argument(1)
			}
			data := c.Argument(0)
			in.later(cb, func() goja.Value { return buffer.WrapBytes(vm, fn(data, opts)) })
			return goja.Undefined()
		})
	}
	for _, name := range []string{"brotliCompressSync", "brotliDecompressSync", "createGzip", "createGunzip", "createDeflate", "createInflate"} {
		n := name
		set(o, n, func() {
			in.throw("skillrun: zlib.%s is not available in skillrun's JavaScript interpreter (the whole-buffer gzip, deflate and their Sync forms are)", n)
		})
	}
	set(o, "constants", map[string]int{"Z_NO_COMPRESSION": 0, "Z_BEST_SPEED": 1, "Z_BEST_COMPRESSION": 9, "Z_DEFAULT_COMPRESSION": -1})
	return o
}

// zlibError throws Node's error for corrupt input (Node's message, not
// Go's reason).
func (in *interp) zlibError(what string) {
	e := in.jsError(what)
	set(e, "code", "Z_DATA_ERROR")
	set(e, "errno", -3)
	panic(e)
}

// peekReader lets unzip look at the first bytes and still read them.
type peekReader struct {
	r    io.Reader
	head []byte
}

func (p *peekReader) peek(n int) []byte {
	buf := make([]byte, n)
	m, _ := io.ReadFull(p.r, buf)
	p.head = buf[:m]
	return p.head
}

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.head) > 0 {
		n := copy(b, p.head)
		p.head = p.head[n:]
		return n, nil
	}
	return p.r.Read(b)
}
