package interp

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The release bundle this binary was built with, set at link time by
// `make dist` (-X github.com/skillrun/skillrun/internal/interp.bundleDigest=...):
// the SHA-256 of the bundle's manifest, and where the release publishes
// the bundle. A development build has neither.
var (
	bundleDigest string
	bundleURL    string
)

// ReleaseBundle returns the digest of the interpreter bundle this binary
// was built with and the URL it was published at; both are "" in a
// development build.
func ReleaseBundle() (digest, url string) { return bundleDigest, bundleURL }

// ErrNoBundleDigest matches an install refused because there is nothing
// to verify the bundle against: a development build, and no digest given.
var ErrNoBundleDigest = errors.New("no bundle digest to verify against")

// BundleOptions configures [InstallBundle].
type BundleOptions struct {
	// Languages are the interpreters to install; empty installs every one
	// the bundle has.
	Languages []string
	// Digest is the bundle digest (hex SHA-256 of its manifest) to verify
	// against; empty means the one this binary carries.
	Digest string
	// Progress, if set, gets a line per interpreter installed.
	Progress io.Writer
}

var hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// InstallBundle installs interpreters from a bundle read from r into the
// interpreters folder dir. Nothing is installed unless the bundle's
// manifest has the expected digest and every file of the interpreters
// installed is in the manifest, with its digest, and every file the
// manifest lists for them is in the bundle. Each interpreter is unpacked
// into a temporary folder and renamed into place, so a refused, truncated
// or interrupted install leaves the one installed before.
func InstallBundle(dir string, r io.Reader, o *BundleOptions) ([]*Interpreter, error) {
	if o == nil {
		o = &BundleOptions{}
	}
	want := strings.ToLower(o.Digest)
	if want == "" {
		want = bundleDigest
	}
	if want == "" {
		return nil, fmt.Errorf("%w: this skillrun is a development build, which carries no release bundle's digest; pass the digest published with the bundle (--sha256), or use a released skillrun", ErrNoBundleDigest)
	}
	if !hexDigest.MatchString(want) {
		return nil, fmt.Errorf("bundle digest %q is not a SHA-256 (64 hex digits)", o.Digest)
	}
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, bundleCopyBuffer))
	if err != nil {
		return nil, fmt.Errorf("not an interpreter bundle (a gzip'd tar): %w", err)
	}
	tr := tar.NewReader(zr)
	files, err := readManifest(tr, want)
	if err != nil {
		return nil, err
	}
	langs, err := bundleSelection(files, o.Languages)
	if err != nil {
		return nil, err
	}
	selected := map[string]bool{}
	for _, l := range langs {
		selected[bundleFolder(l)] = true
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := mkInstallTemp(dir, "bundle")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if err := unpackBundle(tr, root, files, selected); err != nil {
		return nil, err
	}

	// Every interpreter checks out before any is moved into place.
	for _, l := range langs {
		if err := checkUnpacked(filepath.Join(tmp, bundleFolder(l)), l); err != nil {
			return nil, err
		}
	}
	var installed []*Interpreter
	for _, l := range langs {
		if err := swapIn(dir, filepath.Join(tmp, bundleFolder(l)), filepath.Join(dir, bundleFolder(l))); err != nil {
			return installed, fmt.Errorf("installing %s: %w", l, err)
		}
		in, err := Find(dir, l)
		if err != nil {
			return installed, err
		}
		installed = append(installed, in)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "skillrun: installed %s (%s) from the bundle, every file verified\n", l, in.Version)
		}
	}
	return installed, nil
}

// readManifest reads the bundle's first entry, which must be its
// manifest, checks it against the digest want and parses it.
func readManifest(tr *tar.Reader, want string) (map[string]string, error) {
	hdr, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("reading the bundle: %w", truncated(err))
	}
	if hdr.Name != BundleManifest || hdr.Typeflag != tar.TypeReg {
		return nil, fmt.Errorf("not an interpreter bundle: its first file is %q, not %s", hdr.Name, BundleManifest)
	}
	if hdr.Size > maxManifestSize {
		return nil, fmt.Errorf("the bundle's %s is %d bytes (at most %d)", BundleManifest, hdr.Size, maxManifestSize)
	}
	data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
	if err != nil {
		return nil, fmt.Errorf("reading the bundle's %s: %w", BundleManifest, truncated(err))
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, fmt.Errorf("%w: the bundle's %s has SHA-256 %s, and %s was expected: it is another release's bundle or it was altered; nothing installed", errBundleDigest, BundleManifest, got, want)
	}
	return parseManifest(data)
}

// bundleSelection checks the languages asked for against what the
// manifest lists; with none asked, it is every language listed.
func bundleSelection(files map[string]string, asked []string) ([]string, error) {
	has := map[string]bool{}
	for p := range files {
		first, _, _ := strings.Cut(p, "/")
		has[first] = true
	}
	if len(asked) == 0 {
		var langs []string
		for _, l := range bundleLanguages {
			if has[bundleFolder(l)] {
				langs = append(langs, l)
			}
		}
		return langs, nil
	}
	seen := map[string]bool{}
	var langs []string
	for _, l := range asked {
		if !IsBundled(l) {
			return nil, fmt.Errorf("no interpreter %q; skillrun has %s", l, strings.Join(bundleLanguages, ", "))
		}
		if !has[bundleFolder(l)] {
			return nil, fmt.Errorf("the bundle has no %s interpreter", l)
		}
		if !seen[l] {
			seen[l] = true
			langs = append(langs, l)
		}
	}
	return langs, nil
}

// IsBundled reports whether language is one a bundle can carry.
func IsBundled(language string) bool {
	for _, l := range bundleLanguages {
		if l == language {
			return true
		}
	}
	return false
}

// unpackBundle writes the files of the selected folders from tr into
// root, hashing each as it is written. Entries of other folders are
// checked against the manifest too, then skipped.
func unpackBundle(tr *tar.Reader, root *os.Root, files map[string]string, selected map[string]bool) error {
	seen := map[string]bool{}
	var total int64
	buf := make([]byte, bundleCopyBuffer)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the bundle: %w", truncated(err))
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if err := checkBundlePath(name); err != nil {
			return fmt.Errorf("bundle entry %q: %w", hdr.Name, err)
		}
		first, _, _ := strings.Cut(name, "/")
		switch hdr.Typeflag {
		case tar.TypeDir:
			if _, listed := files[name]; listed {
				return fmt.Errorf("bundle entry %s is a folder, and its manifest lists a file there", name)
			}
			if selected[first] {
				if err := root.MkdirAll(name, 0o755); err != nil {
					return err
				}
			}
			continue
		case tar.TypeReg:
		default:
			return fmt.Errorf("bundle entry %s is a %s; a bundle holds only regular files and folders", name, entryKind(hdr.Typeflag))
		}
		listed, ok := files[name]
		if !ok {
			return fmt.Errorf("bundle file %s is not in its %s; nothing installed", name, BundleManifest)
		}
		if seen[name] {
			return fmt.Errorf("bundle file %s appears twice", name)
		}
		seen[name] = true
		if hdr.Size < 0 || hdr.Size > maxBundleFileSize {
			return fmt.Errorf("bundle file %s is %d bytes (at most %d)", name, hdr.Size, maxBundleFileSize)
		}
		if total += hdr.Size; total > maxBundleSize {
			return fmt.Errorf("the bundle unpacks to more than %d bytes", maxBundleSize)
		}
		if !selected[first] {
			continue // tar.Reader skips the content
		}
		if err := unpackFile(tr, root, name, hdr.Size, listed, buf); err != nil {
			return err
		}
	}
	var missing []string
	for p := range files {
		first, _, _ := strings.Cut(p, "/")
		if selected[first] && !seen[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("the bundle lacks %s (and %d more) that its %s lists: a truncated or altered bundle; nothing installed", missing[0], len(missing)-1, BundleManifest)
	}
	return nil
}

// unpackFile writes size bytes of one file to name in root and checks
// they hash to want.
func unpackFile(r io.Reader, root *os.Root, name string, size int64, want string, buf []byte) error {
	if d := filepath.Dir(filepath.FromSlash(name)); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.CopyBuffer(io.MultiWriter(f, h), io.LimitReader(r, size), buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unpacking %s: %w", name, truncated(err))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("bundle file %s has SHA-256 %s, and the bundle's %s lists %s: the file was altered; nothing installed", name, got, BundleManifest, want)
	}
	return nil
}

// checkUnpacked checks that an unpacked interpreter has what Find needs
// and that its module is WebAssembly.
func checkUnpacked(d, language string) error {
	module := filepath.Join(d, "python.wasm")
	need := []string{module, filepath.Join(d, "lib", "python"+PythonVersion, "os.py")}
	if language != Python {
		module = filepath.Join(d, goGuests[language].wasm)
		need = []string{module}
	}
	if err := hasFiles(need...); err != nil {
		return fmt.Errorf("the bundle's %s interpreter is incomplete: %w", language, err)
	}
	if err := checkWasm(module); err != nil {
		return fmt.Errorf("the bundle's %s interpreter: %w", language, err)
	}
	return nil
}

// truncated makes the errors of a bundle that ends early say so.
func truncated(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w (the bundle ends early: a truncated download?)", err)
	}
	return err
}

// entryKind names a tar entry type for messages.
func entryKind(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symbolic link"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "FIFO"
	}
	return fmt.Sprintf("tar entry of type %q", t)
}
