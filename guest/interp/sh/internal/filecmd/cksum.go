package filecmd

import (
	"bufio"
	"fmt"
	"io"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// crcTable is the table of the POSIX cksum CRC (polynomial 0x04C11DB7,
// most significant bit first), which hash/crc32 does not provide.
var crcTable = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// cksum prints the POSIX CRC and size of each file, cksum's default
// (-a crc) output.
func cksum(e *proc.Env, args []string) int {
	_, files, st, ok := parseArgs(e, "cksum", 1, proc.Getopt{}, args[1:])
	if !ok {
		return st
	}
	stdin := len(files) == 0
	if stdin {
		files = []string{"-"}
	}
	status := 0
	for _, name := range files {
		f, err := e.Open(name)
		if err != nil {
			e.Errorf("cksum", "%s: %s", qf(name), proc.ErrorText(err))
			status = 1
			continue
		}
		var crc uint32
		var n uint64
		r := bufio.NewReader(f)
		for {
			c, err := r.ReadByte()
			if err == io.EOF {
				break
			}
			if err != nil {
				e.Errorf("cksum", "%s: %s", qf(name), proc.ErrorText(err))
				status = 1
				break
			}
			crc = crc<<8 ^ crcTable[byte(crc>>24)^c]
			n++
		}
		f.Close()
		for l := n; l != 0; l >>= 8 {
			crc = crc<<8 ^ crcTable[byte(crc>>24)^byte(l)]
		}
		if stdin {
			fmt.Fprintf(e.Stdout, "%d %d\n", ^crc, n)
		} else {
			fmt.Fprintf(e.Stdout, "%d %d %s\n", ^crc, n, name)
		}
	}
	return status
}
