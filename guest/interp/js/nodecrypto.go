package main

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"math/big"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/buffer"
)

// Node's crypto module, the part scripts use without keys of their own:
// hashes and HMACs, random bytes, numbers and UUIDs, PBKDF2, constant-time
// comparison and the Web Crypto digest. Go's standard library does the
// work; random numbers come from WASI's random_get.

// hashes are the digest algorithms by Node's names (any case).
var hashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha224": sha256.New224, "sha256": sha256.New,
	"sha384": sha512.New384, "sha512": sha512.New, "sha512-224": sha512.New512_224, "sha512-256": sha512.New512_256,
	"rsa-sha256": sha256.New, "rsa-sha1": sha1.New, "rsa-sha512": sha512.New,
}

// webHashes are Web Crypto's digest names.
var webHashes = map[string]string{"sha-1": "sha1", "sha-256": "sha256", "sha-384": "sha384", "sha-512": "sha512"}

func (in *interp) newHash(alg string) func() hash.Hash {
	h, ok := hashes[strings.ToLower(alg)]
	if !ok {
		in.throw("Digest method not supported")
	}
	return h
}

// bytesOf is data as bytes: a string in encoding enc (utf8 when empty),
// or a Buffer, typed array, DataView or ArrayBuffer.
func (in *interp) bytesOf(v goja.Value, enc string) []byte {
	if s, ok := v.Export().(string); ok {
		b, err := decodeString(s, enc)
		if err != nil {
			in.throw("%v", err)
		}
		return b
	}
	if o, ok := v.(*goja.Object); ok {
		if dv := o.Get("buffer"); o.ClassName() == "DataView" && dv != nil {
			ab, _ := dv.Export().(goja.ArrayBuffer)
			off, n := o.Get("byteOffset").ToInteger(), o.Get("byteLength").ToInteger()
			return ab.Bytes()[off : off+n]
		}
	}
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		panic(in.vm.NewTypeError(`The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ` + in.format(v, false)))
	}
	return buffer.DecodeBytes(in.vm, v, goja.Undefined())
}

// decodeString turns s into bytes by Node's encoding names.
func decodeString(s, enc string) ([]byte, error) {
	switch strings.ToLower(enc) {
	case "", "utf8", "utf-8":
		return []byte(s), nil
	case "hex":
		// Node stops at the first pair that is not hex.
		out := make([]byte, 0, len(s)/2)
		for i := 0; i+1 < len(s); i += 2 {
			hi, lo := unhex(s[i]), unhex(s[i+1])
			if hi < 0 || lo < 0 {
				break
			}
			out = append(out, byte(hi<<4|lo))
		}
		return out, nil
	case "base64", "base64url":
		t := strings.TrimRight(strings.Map(func(r rune) rune {
			switch r {
			case '-':
				return '+'
			case '_':
				return '/'
			case ' ', '\n', '\r', '\t':
				return -1
			}
			return r
		}, s), "=")
		return base64.RawStdEncoding.DecodeString(t)
	case "latin1", "binary", "ascii":
		b := make([]byte, 0, len(s))
		for _, r := range s {
			b = append(b, byte(r))
		}
		return b, nil
	case "utf16le", "ucs2", "ucs-2", "utf-16le":
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return b, nil
	}
	return nil, unknownEncoding(enc)
}

// unknownEncoding is Node's error for an encoding it does not know.
type unknownEncoding string

func (e unknownEncoding) Error() string { return "Unknown encoding: " + string(e) }

// unhex is the value of a hex digit, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// encodeBytes is b in Node's encoding enc, or a Buffer when enc is empty.
func (in *interp) encodeBytes(b []byte, enc string) goja.Value {
	switch strings.ToLower(enc) {
	case "":
		return buffer.WrapBytes(in.vm, b)
	case "hex":
		return in.vm.ToValue(hex.EncodeToString(b))
	case "base64":
		return in.vm.ToValue(base64.StdEncoding.EncodeToString(b))
	case "base64url":
		return in.vm.ToValue(base64.RawURLEncoding.EncodeToString(b))
	case "latin1", "binary":
		return in.vm.ToValue(latin1(b))
	case "utf8", "utf-8":
		return in.vm.ToValue(strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	in.throw("Unknown encoding: %s", enc)
	return nil
}

func optString(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// hashObject is a Hash or Hmac: update, digest, copy.
func (in *interp) hashObject(h hash.Hash, copyOf func() hash.Hash) *goja.Object {
	o := in.vm.NewObject()
	done := false
	set(o, "update", func(c goja.FunctionCall) goja.Value {
		if done {
			in.throw("Digest already called")
		}
		h.Write(in.bytesOf(c.Argument(0), optString(c.Argument(1))))
		return o
	})
	set(o, "digest", func(c goja.FunctionCall) goja.Value {
		if done {
			in.throw("Digest already called")
		}
		done = true
		return in.encodeBytes(h.Sum(nil), optString(c.Argument(0)))
	})
	if copyOf != nil {
		set(o, "copy", func() goja.Value {
			// Replay is not possible: the state is cloned through the
			// hash's binary marshaling, which Go's hashes implement.
			type marshaler interface{ MarshalBinary() ([]byte, error) }
			type unmarshaler interface{ UnmarshalBinary([]byte) error }
			st, err := h.(marshaler).MarshalBinary()
			if err != nil {
				in.throw("%v", err)
			}
			h2 := copyOf()
			if err := h2.(unmarshaler).UnmarshalBinary(st); err != nil {
				in.throw("%v", err)
			}
			return in.hashObject(h2, copyOf)
		})
	}
	return o
}

func (in *interp) randomBytes(n int64) []byte {
	if n < 0 || n > 1<<31-1 {
		panic(in.vm.NewTypeError(fmt.Sprintf(`The value of "size" is out of range. It must be >= 0 && <= 2147483647. Received %d`, n)))
	}
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		in.throw("%v", err)
	}
	return b
}

func (in *interp) randomUUID() string {
	b := in.randomBytes(16)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// fillRandom fills a typed array with random bytes (getRandomValues).
func (in *interp) fillRandom(v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		panic(in.vm.NewTypeError("The data argument must be an integer-type TypedArray"))
	}
	ab, _ := o.Get("buffer").Export().(goja.ArrayBuffer)
	off, n := o.Get("byteOffset").ToInteger(), o.Get("byteLength").ToInteger()
	if n > 65536 {
		in.throw("QuotaExceededError: The ArrayBufferView's byte length (%d) exceeds the number of bytes of entropy available via this API (65536)", n)
	}
	if _, err := rand.Read(ab.Bytes()[off : off+n]); err != nil {
		in.throw("%v", err)
	}
	return v
}

// later calls cb(err, value) from the event loop, as Node's callback
// forms do.
func (in *interp) later(cb goja.Value, value func() goja.Value) {
	fn, ok := goja.AssertFunction(cb)
	if !ok {
		panic(in.vm.NewTypeError(`The "callback" argument must be of type function`))
	}
	var v goja.Value
	var errv goja.Value = goja.Null()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if e, ok := r.(*goja.Object); ok {
					errv = e
					return
				}
				panic(r)
			}
		}()
		v = value()
	}()
	in.soon(func() {
		if goja.IsNull(errv) {
			in.callback(fn, []goja.Value{goja.Null(), v})
		} else {
			in.callback(fn, []goja.Value{errv})
		}
	})
}

func (in *interp) cryptoModule() goja.Value {
	vm := in.vm
	o := vm.NewObject()
	set(o, "createHash", func(alg string) *goja.Object {
		newH := in.newHash(alg)
		return in.hashObject(newH(), newH)
	})
	set(o, "createHmac", func(c goja.FunctionCall) goja.Value {
		newH := in.newHash(c.Argument(0).String())
		key := in.bytesOf(c.Argument(1), "")
		return in.hashObject(hmac.New(newH, key), nil)
	})
	set(o, "getHashes", func() []string {
		return []string{"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256"}
	})
	set(o, "randomBytes", func(c goja.FunctionCall) goja.Value {
		n := c.Argument(0).ToInteger()
		if cb := c.Argument(1); !goja.IsUndefined(cb) {
			in.later(cb, func() goja.Value { return buffer.WrapBytes(vm, in.randomBytes(n)) })
			return goja.Undefined()
		}
		return buffer.WrapBytes(vm, in.randomBytes(n))
	})
	set(o, "randomUUID", in.randomUUID)
	set(o, "randomInt", func(c goja.FunctionCall) goja.Value {
		lo, hi := int64(0), c.Argument(0).ToInteger()
		if len(c.Arguments) > 1 && !isFunc(c.Argument(1)) {
			lo, hi = hi, c.Argument(1).ToInteger()
		}
		if hi <= lo {
			panic(vm.NewTypeError(fmt.Sprintf(`The value of "max" is out of range. It must be greater than the value of "min" (%d). Received %d`, lo, hi)))
		}
		n, err := rand.Int(rand.Reader, big.NewInt(hi-lo))
		if err != nil {
			in.throw("%v", err)
		}
		return vm.ToValue(lo + n.Int64())
	})
	set(o, "getRandomValues", in.fillRandom)
	set(o, "timingSafeEqual", func(a, b goja.Value) bool {
		x, y := in.bytesOf(a, ""), in.bytesOf(b, "")
		if len(x) != len(y) {
			panic(in.jsError("Input buffers must have the same byte length"))
		}
		return subtle.ConstantTimeCompare(x, y) == 1
	})
	set(o, "pbkdf2Sync", func(c goja.FunctionCall) goja.Value {
		pw, salt := in.bytesOf(c.Argument(0), ""), in.bytesOf(c.Argument(1), "")
		iter, keyLen := int(c.Argument(2).ToInteger()), int(c.Argument(3).ToInteger())
		alg := "sha1"
		if d := optString(c.Argument(4)); d != "" {
			alg = d
		}
		key, err := pbkdf2.Key(in.newHash(alg), string(pw), salt, iter, keyLen)
		if err != nil {
			in.throw("%v", err)
		}
		return buffer.WrapBytes(vm, key)
	})
	set(o, "hash", func(c goja.FunctionCall) goja.Value {
		h := in.newHash(c.Argument(0).String())()
		h.Write(in.bytesOf(c.Argument(1), ""))
		enc := optString(c.Argument(2))
		if enc == "" {
			enc = "hex"
		}
		if enc == "buffer" {
			enc = ""
		}
		return in.encodeBytes(h.Sum(nil), enc)
	})
	web := vm.NewObject()
	set(web, "getRandomValues", in.fillRandom)
	set(web, "randomUUID", in.randomUUID)
	subtleObj := vm.NewObject()
	set(subtleObj, "digest", func(alg, data goja.Value) goja.Value {
		name := alg.String()
		if a, ok := alg.(*goja.Object); ok && a.Get("name") != nil {
			name = a.Get("name").String()
		}
		p, resolve, reject := vm.NewPromise()
		h, ok := webHashes[strings.ToLower(name)]
		if !ok {
			_ = reject(in.jsError("NotSupportedError: Unrecognized algorithm name"))
			return vm.ToValue(p)
		}
		sum := hashes[h]()
		sum.Write(in.bytesOf(data, ""))
		_ = resolve(vm.NewArrayBuffer(sum.Sum(nil)))
		return vm.ToValue(p)
	})
	set(web, "subtle", subtleObj)
	set(o, "webcrypto", web)
	set(o, "subtle", subtleObj)
	for _, name := range []string{"createCipheriv", "createDecipheriv", "createSign", "createVerify", "generateKeyPairSync", "publicEncrypt", "privateDecrypt", "scryptSync", "createECDH"} {
		n := name
		set(o, n, func() {
			in.throw("skillrun: crypto.%s is not available in skillrun's JavaScript interpreter (hashes, HMACs, random values and PBKDF2 are)", n)
		})
	}
	return o
}

func isFunc(v goja.Value) bool {
	_, ok := goja.AssertFunction(v)
	return ok
}
