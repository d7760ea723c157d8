package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// body returns the body of a message, checking its length prefix.
func body(t testing.TB, msg []byte) []byte {
	n, err := Length(msg)
	require.NoError(t, err)
	require.Len(t, msg, 4+n)
	return msg[4:]
}

// TestRoundTrip: requests and replies decode to what was encoded,
// strings of any bytes (invalid UTF-8, NULs, newlines) included.
func TestRoundTrip(t *testing.T) {
	req := &Request{Exe: "/bin/x\x00123\x004.5", Dir: "/home/a b", Umask: 0o027,
		Args: []string{"run", "", "ünï", "\xff\xfe", "a\nb"}, Env: []string{"A=1", "B="}}
	msg, err := AppendRequest(nil, req)
	require.NoError(t, err)
	got, err := DecodeRequest(body(t, msg))
	require.NoError(t, err)
	assert.Equal(t, req, got)

	for _, rep := range []*Reply{{Code: 0}, {Code: 126}, {Code: -1}, {Busy: true}, {Error: "peer is user 7"}} {
		msg, err := AppendReply([]byte("kept"), rep)
		require.NoError(t, err)
		assert.Equal(t, "kept", string(msg[:4]), "appends")
		got, err := DecodeReply(body(t, msg[4:]))
		require.NoError(t, err)
		assert.Equal(t, rep, got)
	}
}

// TestBadMessages: a cut, padded, mislabelled or oversized message is an
// error that says so, never a panic or a huge allocation.
func TestBadMessages(t *testing.T) {
	msg, err := AppendRequest(nil, &Request{Args: []string{"run", "x"}, Env: []string{"A=1"}})
	require.NoError(t, err)
	b := body(t, msg)
	for name, c := range map[string]struct {
		body []byte
		want string
	}{
		"cut":         {b[:len(b)-3], "longer than the message"},
		"padded":      {append(append([]byte{}, b...), 0), "bytes after its end"},
		"reply":       {append([]byte(replyTag), b[4:]...), "not a SRQ1 message"},
		"empty":       {nil, "not a SRQ1 message"},
		"huge list":   {[]byte(requestTag + "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff\xff\xff"), "a list longer than the message"},
		"huge string": {[]byte(requestTag + "\xff\xff\xff\xff"), "a string longer than the message"},
	} {
		_, err := DecodeRequest(c.body)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
	}
	_, err = DecodeReply([]byte(replyTag + "\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00"))
	assert.ErrorContains(t, err, "busy is neither 0 nor 1")

	_, err = Length([]byte{0xff, 0xff, 0xff, 0xff})
	assert.ErrorIs(t, err, ErrTooLong)
	_, err = AppendRequest(nil, &Request{Env: []string{strings.Repeat("x", MaxMessage)}})
	assert.ErrorIs(t, err, ErrTooLong)
}

// FuzzDecodeRequest: any body decodes or fails; what decodes encodes
// back to the same body.
func FuzzDecodeRequest(f *testing.F) {
	msg, _ := AppendRequest(nil, &Request{Exe: "e", Args: []string{"run"}, Dir: "/", Env: []string{"A=1"}, Umask: 0o22})
	f.Add(msg[4:])
	f.Add([]byte(requestTag))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRequest(b)
		if err != nil {
			return
		}
		again, err := AppendRequest(nil, r)
		require.NoError(t, err)
		assert.Equal(t, b, again[4:])
	})
}
