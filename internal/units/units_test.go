package units

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBytes(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0B", 1: "1B", 1536: "1536B", 2048: "2KiB", 64 << 20: "64MiB",
		3 << 30: "3GiB", 1 << 40: "1TiB", 1<<40 + 1: "1099511627777B", 1 << 63: "8388608TiB",
	} {
		assert.Equal(t, want, Bytes(n), "Bytes(%d)", n)
	}
}
