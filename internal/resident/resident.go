// Package resident lets a one-shot skillrun command hand its work to a
// warm process of the same user and build: the resident keeps compiled
// modules and interpreter snapshots in memory, so a `skillrun run` that
// would spend 200 ms loading CPython's module before its script starts
// spends what the script needs.
//
// The protocol is one request per connection on a Unix socket in a
// folder only the user can enter (0700, checked), named by the running
// executable, so a client never talks to a resident of another build
// (package wire holds the messages and the socket's name; package
// handoff is the client the skillrun command runs):
//
//   - the client sends a [Request] (its executable's identity, arguments,
//     working directory, environment and umask) with its stdin, stdout
//     and stderr passed as descriptors (SCM_RIGHTS);
//   - the resident checks the peer's user id (SO_PEERCRED) and namespaces
//     against its own, and the request's executable against its own,
//     runs the command, and answers with a [Reply]:
//     the exit code, or Busy when it is running another command (it runs
//     one at a time, because the working directory, environment and
//     umask it takes from the client are the process's);
//   - the client closing the connection (it was interrupted, or died)
//     cancels the command.
//
// Only Linux has a resident (peer credentials, descriptor passing as
// implemented here); elsewhere [Listen] and [Call] return
// [errors.ErrUnsupported] and commands run in their own process.
package resident

import (
	"errors"
	"fmt"
	"io"

	"github.com/skillrun/skillrun/internal/resident/wire"
)

// A Request is a command a client hands to the resident.
type Request = wire.Request

// A Reply is the resident's answer.
type Reply = wire.Reply

// writeReply writes r.
func writeReply(w io.Writer, r *Reply) error {
	b, err := wire.AppendReply(nil, r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// readBody reads a message's body; head holds bytes already read.
func readBody(r io.Reader, head []byte) ([]byte, error) {
	for len(head) < 4 {
		var b [4]byte
		n, err := r.Read(b[:4-len(head)])
		head = append(head, b[:n]...)
		if err != nil && len(head) < 4 {
			return nil, fmt.Errorf("reading a message: %w", err)
		}
	}
	n, err := wire.Length(head)
	if err != nil {
		return nil, err
	}
	body := head[4:]
	if len(body) > n {
		return nil, errors.New("message longer than its length")
	}
	rest := make([]byte, n-len(body))
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, fmt.Errorf("reading a message: %w", err)
	}
	return append(body[:len(body):len(body)], rest...), nil
}
