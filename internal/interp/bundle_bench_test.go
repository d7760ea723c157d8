package interp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkInstallBundle installs the shell and JavaScript interpreters
// of this machine from a bundle, every file hashed and checked, against
// the baseline of GNU tar unpacking the same archive with no checks, in
// the same run: skillrun/tar is what verification and the atomic
// install cost.
func BenchmarkInstallBundle(b *testing.B) {
	dir, err := DefaultDir()
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range []string{JS, Shell} {
		if _, err := Find(dir, l); err != nil {
			b.Skipf("needs the installed interpreters: %v", err)
		}
	}
	tar, err := exec.LookPath("tar")
	if err != nil {
		b.Skip("no tar for the baseline")
	}
	var buf bytes.Buffer
	digest, err := WriteBundle(&buf, dir, []string{JS, Shell})
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "bundle.tar.gz")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	var ours, native time.Duration
	for b.Loop() {
		dst := b.TempDir()
		start := time.Now()
		if _, err := InstallBundle(dst, bytes.NewReader(buf.Bytes()), &BundleOptions{Digest: digest}); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)

		dst = b.TempDir()
		start = time.Now()
		if out, err := exec.Command(tar, "-xzf", file, "-C", dst).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		native += time.Since(start)
	}
	b.ReportMetric(float64(ours.Milliseconds())/float64(b.N), "skillrun-ms/op")
	b.ReportMetric(float64(native.Milliseconds())/float64(b.N), "tar-ms/op")
	b.ReportMetric(float64(ours)/float64(native), "skillrun/tar")
	b.ReportMetric(float64(buf.Len())/(1<<20), "bundle-MB")
}
