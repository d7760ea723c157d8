package admission

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// physicalMemory returns the machine's memory in bytes from
// /proc/meminfo (MemTotal, in kB), or 0 where there is none (not Linux)
// or it cannot be read. It reads the file at most once every
// memTotalTTL: every command the resident serves builds its flags'
// defaults from it, three times (a VM's memory can change, so not once
// per process).
func physicalMemory() int64 {
	memTotal.Lock()
	defer memTotal.Unlock()
	if now := time.Now(); memTotal.at.IsZero() || now.Sub(memTotal.at) > memTotalTTL {
		memTotal.v, memTotal.at = readMemTotal(), now
	}
	return memTotal.v
}

const memTotalTTL = 5 * time.Second

var memTotal struct {
	sync.Mutex
	at time.Time
	v  int64
}

func readMemTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return parseMemTotal(bufio.NewScanner(f))
}

// parseMemTotal reads the MemTotal line ("MemTotal:  24568480 kB") of a
// /proc/meminfo listing; 0 if it has none that parses.
func parseMemTotal(sc *bufio.Scanner) int64 {
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb <= 0 || kb > 1<<40 { // over an exbibyte is not a machine
			return 0
		}
		return kb << 10
	}
	return 0
}
