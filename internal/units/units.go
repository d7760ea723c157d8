// Package units formats byte counts the way skill.toml writes them, so
// capabilities (which parses them) and the sandbox core (whose errors
// print limits) say sizes in the same words without depending on each
// other.
package units

import "strconv"

// Bytes formats n in the largest binary unit that divides it exactly:
// 64<<20 is "64MiB", 2048 is "2KiB", 1536 (1.5 KiB) is "1536B", 0 is "0B".
func Bytes(n uint64) string {
	for _, u := range []struct {
		name string
		mult uint64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatUint(n/u.mult, 10) + u.name
		}
	}
	return strconv.FormatUint(n, 10) + "B"
}
