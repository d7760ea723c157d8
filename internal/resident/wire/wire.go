// Package wire is what a resident and its clients share: the messages
// they exchange, the socket's name and the identity of the executable.
//
// It imports nothing but syscall and errors, on purpose. The client side
// (package handoff) runs from a package init of the skillrun command, and
// Go initialises a package as soon as its imports are, in import-path
// order: with no heavier import it runs right after syscall, before the
// JSON Schema tables, the provider SDKs and the rest of skillrun (about
// 30 ms and 15 MiB of a start). That is also why the messages are a
// small binary format rather than JSON: encoding/json would bring
// reflect, and the packages waiting for it, first.
//
// A message is a 4-byte big-endian length and a body of at most
// [MaxMessage] bytes. In a body an integer is 4 bytes big-endian, a
// string its length and bytes, a list of strings its count and strings:
//
//	request: "SRQ1" exe dir umask args env
//	reply:   "SRP1" code busy(0|1) error
package wire

import "errors"

// A Request is a command a client hands to the resident.
type Request struct {
	// Exe identifies the client's executable ([ExeID]): a resident
	// runs only its own build's commands.
	Exe string
	// Args are the command's arguments, without the program name.
	Args []string
	// Dir is the client's working directory.
	Dir string
	// Env is the client's environment ("KEY=VALUE").
	Env []string
	// Umask is the client's file mode creation mask.
	Umask int
}

// A Reply is the resident's answer.
type Reply struct {
	// Code is the command's exit code.
	Code int
	// Busy says the resident was running another command and ran
	// nothing: the client runs the command itself.
	Busy bool
	// Error says why the resident could not run the command (a malformed
	// request, another user, another build): the client runs it itself.
	Error string
}

// MaxMessage bounds a message's body.
const MaxMessage = 4 << 20

// maxList bounds the strings of a list (arguments, environment).
const maxList = 1 << 16

const (
	requestTag = "SRQ1"
	replyTag   = "SRP1"
)

// ErrTooLong is the error for a message over MaxMessage.
var ErrTooLong = errors.New("message over the 4 MiB a resident takes")

// AppendRequest appends r as a message (length and body) to b.
func AppendRequest(b []byte, r *Request) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b = append(b, requestTag...)
	b = appendString(b, r.Exe)
	b = appendString(b, r.Dir)
	b = appendUint(b, uint32(r.Umask))
	b = appendList(b, r.Args)
	b = appendList(b, r.Env)
	return finish(b, start)
}

// AppendReply appends r as a message (length and body) to b.
func AppendReply(b []byte, r *Reply) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b = append(b, replyTag...)
	b = appendUint(b, uint32(int32(r.Code)))
	busy := uint32(0)
	if r.Busy {
		busy = 1
	}
	b = appendUint(b, busy)
	b = appendString(b, r.Error)
	return finish(b, start)
}

// finish writes the length of the body that starts at b[start+4:].
func finish(b []byte, start int) ([]byte, error) {
	n := len(b) - start - 4
	if n > MaxMessage {
		return b[:start], ErrTooLong
	}
	putUint(b[start:], uint32(n))
	return b, nil
}

// Length returns the body length a message's first 4 bytes announce.
func Length(head []byte) (int, error) {
	if len(head) < 4 {
		return 0, errors.New("message shorter than its length")
	}
	n := getUint(head)
	if n > MaxMessage {
		return 0, ErrTooLong
	}
	return int(n), nil
}

// DecodeRequest decodes a request's body.
func DecodeRequest(body []byte) (*Request, error) {
	d := decoder{b: body}
	d.tag(requestTag)
	r := &Request{Exe: d.string(), Dir: d.string(), Umask: int(d.uint())}
	r.Args = d.list()
	r.Env = d.list()
	if err := d.end(); err != nil {
		return nil, err
	}
	return r, nil
}

// DecodeReply decodes a reply's body.
func DecodeReply(body []byte) (*Reply, error) {
	d := decoder{b: body}
	d.tag(replyTag)
	r := &Reply{Code: int(int32(d.uint()))}
	switch d.uint() {
	case 0:
	case 1:
		r.Busy = true
	default:
		d.fail("busy is neither 0 nor 1")
	}
	r.Error = d.string()
	if err := d.end(); err != nil {
		return nil, err
	}
	return r, nil
}

func appendUint(b []byte, v uint32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func putUint(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func getUint(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func appendString(b []byte, s string) []byte {
	return append(appendUint(b, uint32(len(s))), s...)
}

func appendList(b []byte, l []string) []byte {
	b = appendUint(b, uint32(len(l)))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

// A decoder reads a body; its first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(why string) {
	if d.err == nil {
		d.err = errors.New("malformed message: " + why)
	}
	d.b = nil
}

func (d *decoder) tag(t string) {
	if len(d.b) < len(t) || string(d.b[:len(t)]) != t {
		d.fail("not a " + t + " message")
		return
	}
	d.b = d.b[len(t):]
}

func (d *decoder) uint() uint32 {
	if len(d.b) < 4 {
		d.fail("cut short")
		return 0
	}
	v := getUint(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) string() string {
	n := d.uint()
	if uint64(n) > uint64(len(d.b)) {
		d.fail("a string longer than the message")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) list() []string {
	n := d.uint()
	if n > maxList || uint64(n)*4 > uint64(len(d.b)) {
		d.fail("a list longer than the message")
		return nil
	}
	l := make([]string, 0, n)
	for range n {
		l = append(l, d.string())
	}
	return l
}

func (d *decoder) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail("bytes after its end")
	}
	return d.err
}
