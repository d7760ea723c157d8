package main

import (
	"os"

	"github.com/dop251/goja"
)

// Node's os module, as the sandbox is: one processor, no network
// interfaces, the machine's figures hidden. Paths are those of the
// sandbox (os.tmpdir() is /tmp, os.homedir() is $HOME, else /).
func (in *interp) osModule() goja.Value {
	vm := in.vm
	o := vm.NewObject()
	platform := vm.Get("process").ToObject(vm).Get("platform").String()
	set(o, "EOL", "\n")
	set(o, "devNull", "/dev/null")
	set(o, "platform", func() string { return platform })
	set(o, "type", func() string { return "WASI" })
	set(o, "release", func() string { return "preview1" })
	set(o, "version", func() string { return "WASI preview1 (skillrun)" })
	set(o, "arch", func() string { return "wasm32" })
	set(o, "machine", func() string { return "wasm32" })
	set(o, "endianness", func() string { return "LE" })
	set(o, "hostname", func() string { return "sandbox" })
	set(o, "homedir", func() string {
		if h := os.Getenv("HOME"); h != "" {
			return h
		}
		return "/"
	})
	set(o, "tmpdir", func() string {
		if t := os.Getenv("TMPDIR"); t != "" {
			return t
		}
		return "/tmp"
	})
	set(o, "cpus", func() []map[string]any {
		return []map[string]any{{"model": "wasm32", "speed": 0, "times": map[string]int{"user": 0, "nice": 0, "sys": 0, "idle": 0, "irq": 0}}}
	})
	set(o, "availableParallelism", func() int { return 1 })
	set(o, "totalmem", func() int64 { return 0 })
	set(o, "freemem", func() int64 { return 0 })
	set(o, "uptime", func() int { return 0 })
	set(o, "loadavg", func() []float64 { return []float64{0, 0, 0} })
	set(o, "networkInterfaces", func() map[string]any { return map[string]any{} })
	set(o, "userInfo", func() map[string]any {
		return map[string]any{"uid": -1, "gid": -1, "username": "sandbox", "homedir": os.Getenv("HOME"), "shell": nil}
	})
	consts := vm.NewObject()
	set(consts, "signals", map[string]int{"SIGHUP": 1, "SIGINT": 2, "SIGKILL": 9, "SIGTERM": 15})
	set(consts, "errno", map[string]int{})
	set(o, "constants", consts)
	return o
}
