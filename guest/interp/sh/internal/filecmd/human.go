package filecmd

import (
	"fmt"
	"math"
)

// humanSize formats n bytes as ls -h and du -h do: plain bytes below
// one unit, otherwise rounded up to one decimal below 10 ("4.0K",
// "1.5M") and to a whole number above ("12K"); base is 1024 (or 1000
// for --si, with a lower-case k).
func humanSize(n int64, base float64) string {
	if float64(n) < base {
		return fmt.Sprint(n)
	}
	units := "KMGTPEZY"
	if base == 1000 {
		units = "kMGTPEZY"
	}
	v, i := float64(n), -1
	for v >= base && i < len(units)-1 {
		v /= base
		i++
	}
	if v < 10 {
		if r := math.Ceil(v*10) / 10; r < 10 {
			return fmt.Sprintf("%.1f%c", r, units[i])
		}
	}
	r := math.Ceil(v)
	if r >= base && i < len(units)-1 {
		return fmt.Sprintf("%.1f%c", 1.0, units[i+1])
	}
	return fmt.Sprintf("%.0f%c", r, units[i])
}
