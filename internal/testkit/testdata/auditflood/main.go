//go:build wasip1

// Command auditflood is a hostile test guest (issue 11, finding 9): it
// tries to fill the operator's audit log through host calls that need no
// grant. It calls skills_search N times with a query of about 1 MiB of
// "<" (which JSON writes as \u003c, six bytes each), sent as raw JSON so
// that the request stays within the ABI's payload bound, then N times
// with a 4,000-byte query, then skill_activate N times with a 100 KiB
// name. It prints one line per kind of call: how many calls ended with
// each outcome. "auditflood many N" instead makes N small searches, each
// allowed and audited, to pass the per-run bound on audit events.
//
// It is part of the main module (no go.mod), so it can import package
// guest; build it from here with GOOS=wasip1 GOARCH=wasm go build.
package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/skillrun/skillrun/guest"
)

//go:wasmimport skillrun skills_search
func rawSearch(ptr, size uint32) int32

//go:wasmimport skillrun take
func rawTake(ptr, capacity uint32) int32

func main() {
	if len(os.Args) == 3 && os.Args[1] == "many" {
		n, _ := strconv.Atoi(os.Args[2])
		outcomes := map[string]int{}
		for range n {
			_, err := guest.SearchSkills("csv", 1)
			outcomes[code(err)]++
		}
		report("skills_search small", outcomes)
		return
	}
	n := 16
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil {
			fmt.Println("usage: auditflood [N] | auditflood many N")
			os.Exit(2)
		}
		n = v
	}
	huge := []byte(`{"query":"` + strings.Repeat("<", guest.MaxPayload-64) + `"}`)
	outcomes := map[string]int{}
	for range n {
		outcomes[outcome(rawCall(huge))]++
	}
	report("skills_search 1MiB", outcomes)

	outcomes = map[string]int{}
	for range n {
		_, err := guest.SearchSkills(strings.Repeat("q", 4000), 1)
		outcomes[code(err)]++
	}
	report("skills_search 4000B", outcomes)

	outcomes = map[string]int{}
	for range n {
		_, _, err := guest.ActivateSkill(strings.Repeat("n", 100<<10))
		outcomes[code(err)]++
	}
	report("skill_activate 100KiB", outcomes)
}

// rawCall calls skills_search with req as it is and returns the response.
func rawCall(req []byte) []byte {
	n := rawSearch(uint32(uintptr(unsafe.Pointer(&req[0]))), uint32(len(req)))
	if n <= 0 {
		return nil
	}
	buf := make([]byte, n)
	rawTake(uint32(uintptr(unsafe.Pointer(&buf[0]))), uint32(n))
	return buf
}

// outcome names the error code of a raw response, or "ok".
func outcome(resp []byte) string {
	s := string(resp)
	if i := strings.Index(s, `"code":"`); i >= 0 {
		rest := s[i+len(`"code":"`):]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j]
		}
	}
	return "ok"
}

func code(err error) string {
	if err == nil {
		return "ok"
	}
	if e, ok := errors.AsType[*guest.Error](err); ok {
		return e.Code
	}
	return "untyped"
}

func report(what string, outcomes map[string]int) {
	var keys []string
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, outcomes[k]))
	}
	fmt.Printf("%s: %s\n", what, strings.Join(parts, " "))
}
