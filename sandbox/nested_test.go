package sandbox

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNestedOutputChain: a nested run's output counts against its
// caller's limit too; the write that crosses the caller's limit is cut
// there and stops both runs; captured output (localWriter) counts
// against the nested run alone.
func TestNestedOutputChain(t *testing.T) {
	var rootCause, childCause error
	root := &outputLimit{limit: 10, cancel: func(err error) { rootCause = err }}
	child := &outputLimit{limit: 100, parent: root, cancel: func(err error) { childCause = err }}
	var buf bytes.Buffer
	w := child.writer(&buf)

	n, err := w.Write([]byte("abcdef"))
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	n, err = child.localWriter(&buf).Write([]byte("captured"))
	require.NoError(t, err)
	assert.Equal(t, 8, n)
	assert.True(t, child.Spend(2), "a log line within both limits")

	n, err = w.Write([]byte("ghijkl"))
	assert.ErrorIs(t, err, errOutputCause)
	assert.Equal(t, 2, n, "cut where the caller's limit is")
	assert.Equal(t, "abcdefcapturedgh", buf.String())
	rn, rcut, rshared := root.written()
	assert.Equal(t, []any{uint64(10), true, false}, []any{rn, rcut, rshared})
	cn, ccut, cshared := child.written()
	assert.Equal(t, []any{uint64(18), true, true}, []any{cn, ccut, cshared})
	assert.ErrorIs(t, rootCause, errOutputCause, "the caller whose limit is used up is stopped")
	assert.ErrorIs(t, childCause, errOutputCause)

	// A sibling started after: nothing left, and a log line is refused.
	sib := &outputLimit{limit: 100, parent: root, cancel: func(error) {}}
	assert.False(t, sib.Spend(1))
	n, err = sib.writer(&buf).Write([]byte("x"))
	assert.Equal(t, 0, n)
	assert.ErrorIs(t, err, errOutputCause)
}

// TestQuotaWriter: a Quota's writer and its mounts' writes share one
// count; past it a write is cut, fails with ErrQuota, and full is called
// once.
func TestQuotaWriter(t *testing.T) {
	q := NewQuota(10)
	assert.Equal(t, int64(4), q.take(4), "a run's write in the folder")
	calls := 0
	var buf bytes.Buffer
	w := q.Writer(&buf, func() { calls++ })
	n, err := w.Write([]byte("abcd"))
	require.NoError(t, err)
	assert.Equal(t, 4, n)
	n, err = w.Write([]byte("efgh"))
	assert.Equal(t, 2, n)
	assert.True(t, errors.Is(err, ErrQuota), "%v", err)
	_, err = w.Write([]byte("i"))
	assert.ErrorIs(t, err, ErrQuota)
	assert.Equal(t, 1, calls)
	assert.Equal(t, int64(10), q.Used())
	assert.Equal(t, "abcdef", buf.String())
}

// TestCallerLend: a nested run's memory limit is what its caller leaves:
// the caller's limit less its tables, the memory it holds and what its
// other nested runs took; given back when the nested run ends.
func TestCallerLend(t *testing.T) {
	m := &memoryLimit{limit: 90 << 20, whole: 100 << 20, tables: 10 << 20}
	m.held.Store(30 << 20)
	c := &Caller{mem: m}
	got, hold, giveBack := c.lend(256 << 20)
	assert.Equal(t, uint64(60<<20), got)
	assert.Equal(t, uint64(40<<20), hold)
	got2, _, giveBack2 := c.lend(8 << 20)
	assert.Equal(t, uint64(0), got2, "a second nested run at once gets nothing")
	giveBack2()
	giveBack()
	got, _, _ = c.lend(20 << 20)
	assert.Equal(t, uint64(20<<20), got, "a run's own smaller limit stands")
	assert.Nil(t, CallerOf(context.Background()))
}
