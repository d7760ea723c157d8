//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillrun/skillrun/internal/resident/wire"
)

// BenchmarkClient measures one-shot commands handed to a warm resident
// through the small client and through the full binary, against the
// native program doing the same work, the three alternated in the same
// run: x-native is the client's ratio, x-native-full the full binary's,
// ms/op each side's mean.
//
//	go test -run '^$' -bench Client ./cmd/skillrun-client
func BenchmarkClient(b *testing.B) {
	const sh = "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		b.Skipf("the native baseline %s is not installed", sh)
	}
	dir, err := binaries()
	if err != nil {
		b.Fatal(err)
	}
	client, engine := filepath.Join(dir, "skillrun"), filepath.Join(dir, EngineName)
	cache := b.TempDir()
	b.Setenv("XDG_CACHE_HOME", cache)
	res := exec.Command(engine, "resident", "--idle", "5m")
	if err := res.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = res.Process.Signal(syscall.SIGTERM)
		_ = res.Wait()
	})
	sock, err := wire.SocketPath(filepath.Join(cache, "skillrun", "resident"), wire.ExeIDOf(engine))
	if err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		} else if time.Now().After(deadline) {
			b.Fatal("the resident did not listen")
		}
	}
	ws := b.TempDir()
	skill, err := filepath.Abs("../../examples/word-count")
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name           string
		skillrun, base []string
	}{
		{"shell-c", []string{"shell", "--workspace", ws, "-A", "-c", "echo hi"}, []string{sh, "-c", "echo hi"}},
		// No native program validates a skill: the baseline is a process
		// start (/bin/true); the target is absolute (10 ms).
		{"validate", []string{"validate", skill}, []string{"/bin/true"}},
	}
	start := func(args ...string) time.Duration {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = ws
		cmd.Stdout = io.Discard
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		t := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		return time.Since(t)
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			start(append([]string{client}, c.skillrun...)...) // warm the resident
			var small, full, native time.Duration
			for b.Loop() {
				small += start(append([]string{client}, c.skillrun...)...)
				full += start(append([]string{engine}, c.skillrun...)...)
				native += start(c.base...)
			}
			n := float64(b.N)
			b.ReportMetric(small.Seconds()*1e3/n, "ms-client/op")
			b.ReportMetric(full.Seconds()*1e3/n, "ms-full/op")
			b.ReportMetric(native.Seconds()*1e3/n, "ms-native/op")
			b.ReportMetric(small.Seconds()/native.Seconds(), "x-native")
			b.ReportMetric(full.Seconds()/native.Seconds(), "x-native-full")
		})
	}
}
