//go:build wasip1

// Command hostcall is the test guest of sandbox/hostmod_test.go: it calls
// every skillrun host function through package guest, and makes hostile
// calls through raw imports. Its input, a JSON object, says what to do:
// {"mode":"all"}, {"mode":"hostile"}, {"mode":"recurse"} or
// {"mode":"bench","n":1000} or {"mode":"logflood","n":16}. It prints one line per step to stdout.
//
// It is part of the main module (no go.mod), so it can import package
// guest; build it from here with GOOS=wasip1 GOARCH=wasm go build.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/skillrun/skillrun/guest"
)

//go:wasmimport skillrun log
func rawLog(ptr, size uint32) int32

//go:wasmimport skillrun input
func rawInput(ptr, size uint32) int32

//go:wasmimport skillrun take
func rawTake(ptr, capacity uint32) int32

func main() {
	in, err := guest.Input()
	if err != nil {
		fmt.Println("input error:", err)
		os.Exit(1)
	}
	var req struct {
		Mode string `json:"mode"`
		N    int    `json:"n"`
	}
	if err := json.Unmarshal(in, &req); err != nil {
		fmt.Println("input:", err)
		os.Exit(1)
	}
	switch req.Mode {
	case "all":
		all(in)
	case "hostile":
		hostile()
	case "recurse":
		res, err := guest.RunSkill("self", "hostcall", map[string]string{"mode": "recurse"})
		out := ""
		if err != nil {
			out = "limit: " + err.Error()
		} else {
			out = "nested(" + res.Content + ")"
		}
		if err := guest.Output([]byte(out)); err != nil {
			fmt.Println("output:", err)
		}
	case "logflood": // n log lines of almost 1 MiB each (issue 11 finding 8)
		line := strings.Repeat("x", 1<<20-1024)
		for range req.N {
			guest.Log("info", line)
		}
	case "bench":
		buf := make([]byte, 256)
		p := uint32(uintptr(unsafe.Pointer(&buf[0])))
		for range req.N {
			n := rawInput(0, 0)
			if rawTake(p, uint32(len(buf))) != n {
				fmt.Println("take failed")
				os.Exit(1)
			}
		}
	default:
		fmt.Println("unknown mode", req.Mode)
		os.Exit(1)
	}
}

// show prints a step's outcome: the value as JSON, or the error's code
// and message.
func show(step string, v any, err error) {
	if err != nil {
		if e, ok := errors.AsType[*guest.Error](err); ok {
			fmt.Printf("%s: error %s: %s\n", step, e.Code, e.Message)
			return
		}
		fmt.Printf("%s: error (untyped) %v\n", step, err)
		return
	}
	b, _ := json.Marshal(v)
	fmt.Printf("%s: %s\n", step, b)
}

func all(in []byte) {
	fmt.Println("abi_version:", guest.ABIVersion())
	show("input", json.RawMessage(in), nil)
	show("output", nil, guest.Output([]byte("hello from the guest")))
	guest.Log("info", "guest says hi")
	res, err := guest.CallTool("echo", map[string]int{"x": 1})
	show("tool_call allowed", res, err)
	res, err = guest.CallTool("rm_rf", nil)
	show("tool_call denied", res, err)
	skills, err := guest.SearchSkills("pdf", 5)
	show("skills_search", skills, err)
	body, files, err := guest.ActivateSkill("pdf")
	show("skill_activate", []any{body, files}, err)
	data, err := guest.ReadResource("references/a.md")
	show("skill_read", string(data), err)
	_, err = guest.ReadResource("../other/SKILL.md")
	show("skill_read escape", nil, err)
	res, err = guest.RunSkill("pdf", "extract", map[string]string{"f": "a.pdf"})
	show("skill_run", res, err)
	res, err = guest.RunSkill("evil", "x", nil)
	show("skill_run denied", res, err)
	res, err = guest.CallMCP("gh", "issues", map[string]int{"n": 2})
	show("mcp_call", res, err)
	res, err = guest.CallMCP("slack", "post", nil)
	show("mcp_call denied", res, err)
	resp, err := guest.Fetch(&guest.FetchRequest{URL: "https://api.example.com/x"})
	show("http_fetch", resp, err)
	resp, err = guest.Fetch(&guest.FetchRequest{URL: "https://evil.example/"})
	show("http_fetch denied", resp, err)
	show("output too large", nil, guest.Output([]byte(strings.Repeat("x", guest.MaxPayload+1))))
}

// rawCall makes a raw log call and takes the response.
func rawCall(ptr, size uint32) string {
	n := rawLog(ptr, size)
	if n < 0 {
		return fmt.Sprintf("length %d", n)
	}
	buf := make([]byte, n)
	if got := rawTake(uint32(uintptr(unsafe.Pointer(&buf[0]))), uint32(n)); got != n {
		return fmt.Sprintf("take %d", got)
	}
	return string(buf)
}

func hostile() {
	fmt.Println("out of bounds:", rawCall(0xfffffff0, 100))
	fmt.Println("straddling:", rawCall(0x7fffffff, 0x80000002))
	fmt.Println("over MaxPayload:", rawCall(0, guest.MaxPayload+1))
	garbage := []byte("{not json")
	fmt.Println("garbage:", rawCall(uint32(uintptr(unsafe.Pointer(&garbage[0]))), uint32(len(garbage))))
	fmt.Println("take with nothing waiting:", rawTake(0, 100))
	n := rawLog(0xfffffff0, 100)
	fmt.Println("take into too small a buffer:", rawTake(0, uint32(n-1)))
	fmt.Println("take out of bounds:", rawTake(0xfffffff0, uint32(n)))
	fmt.Println("take after that:", rawCall(0, 0) != "")
}
