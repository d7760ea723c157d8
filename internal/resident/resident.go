// Package resident lets a one-shot skillrun command hand its work to a
// warm process of the same user and build: the resident keeps compiled
// modules and interpreter snapshots in memory, so a `skillrun run` that
// would spend 200 ms loading CPython's module before its script starts
// spends what the script needs.
//
// The protocol is one request per connection on a Unix socket in a
// folder only the user can enter (0700, checked), named by the running
// executable, so a client never talks to a resident of another build:
//
//   - the client sends a length-prefixed JSON [Request] (its arguments,
//     working directory, environment and umask) with its stdin, stdout
//     and stderr passed as descriptors (SCM_RIGHTS);
//   - the resident checks the peer's user id (SO_PEERCRED) against its
//     own, runs the command, and answers with a length-prefixed [Reply]:
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
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A Request is a command a client hands to the resident.
type Request struct {
	// Args are the command's arguments, without the program name.
	Args []string `json:"args"`
	// Dir is the client's working directory.
	Dir string `json:"dir"`
	// Env is the client's environment ("KEY=VALUE").
	Env []string `json:"env"`
	// Umask is the client's file mode creation mask.
	Umask int `json:"umask"`
}

// A Reply is the resident's answer.
type Reply struct {
	// Code is the command's exit code.
	Code int `json:"code"`
	// Busy says the resident was running another command and ran
	// nothing: the client runs the command itself.
	Busy bool `json:"busy,omitempty"`
	// Error says why the resident could not run the command (a malformed
	// request, another user): the client runs it itself.
	Error string `json:"error,omitempty"`
}

// maxMessage bounds a request or reply.
const maxMessage = 4 << 20

// writeMessage writes v as a length-prefixed JSON message.
func writeMessage(w io.Writer, v any) error {
	b, err := encodeMessage(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func encodeMessage(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(data) > maxMessage {
		return nil, fmt.Errorf("message of %d bytes; at most %d", len(data), maxMessage)
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	return append(b, data...), nil
}

// readMessage reads a length-prefixed JSON message into v; head holds
// bytes already read.
func readMessage(r io.Reader, head []byte, v any) error {
	for len(head) < 4 {
		var b [4]byte
		n, err := r.Read(b[:4-len(head)])
		head = append(head, b[:n]...)
		if err != nil && len(head) < 4 {
			return fmt.Errorf("reading a message: %w", err)
		}
	}
	n := binary.BigEndian.Uint32(head[:4])
	if n > maxMessage {
		return fmt.Errorf("message of %d bytes; at most %d", n, maxMessage)
	}
	body := head[4:]
	if uint32(len(body)) > n {
		return errors.New("message longer than its length")
	}
	rest := make([]byte, int(n)-len(body))
	if _, err := io.ReadFull(r, rest); err != nil {
		return fmt.Errorf("reading a message: %w", err)
	}
	dec := json.NewDecoder(io.MultiReader(bytes.NewReader(body), bytes.NewReader(rest)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
