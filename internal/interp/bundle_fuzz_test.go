package interp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseManifest: any manifest is parsed or refused, never a panic,
// and every path it accepts is clean, relative and in an interpreter's
// folder.
func FuzzParseManifest(f *testing.F) {
	sum := strings.Repeat("ab", 32)
	f.Add([]byte(sum + "  sh/sh.wasm\n"))
	f.Add([]byte(sum + "  python-3.11/lib/python3.11/os.py\n" + sum + "  js/js.wasm\n"))
	f.Add([]byte(sum + "  sh/../../etc/passwd\n"))
	f.Add([]byte("nonsense"))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := parseManifest(data)
		if err != nil {
			return
		}
		for p := range files {
			first, _, _ := strings.Cut(p, "/")
			if checkBundlePath(p) != nil || filepath.IsAbs(p) || !IsBundled(first) && first != bundleFolder(Python) {
				t.Fatalf("accepted %q", p)
			}
		}
	})
}

// FuzzInstallBundle: any archive is installed or refused, never a panic,
// and nothing lands outside the interpreters folder.
func FuzzInstallBundle(f *testing.F) {
	var b bytes.Buffer
	src := f.TempDir()
	for name, data := range map[string]string{"sh/sh.wasm": wasmHeader + "sh", "sh/VERSION": "v1"} {
		p := filepath.Join(src, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(data), 0o644)
	}
	digest, err := WriteBundle(&b, src, []string{Shell})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:b.Len()/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "interpreters")
		_, _ = InstallBundle(dir, bytes.NewReader(data), &BundleOptions{Digest: digest})
		entries, _ := os.ReadDir(parent)
		if len(entries) > 1 {
			t.Fatalf("files outside the interpreters folder: %v", entries)
		}
	})
}
