package interp

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/skillrun/skillrun/internal/safefile"
)

// An interpreter bundle carries installed interpreters to a machine that
// cannot build them (no Go, clang or Debian packages): a gzip'd tar whose
// first file is BundleManifest, then the interpreters' folders exactly as
// they sit in the interpreters folder (python-3.11/, js/, js-ts/, sh/).
//
// The manifest lists every other file with its SHA-256 in sha256sum's
// format, so `sha256sum -c` checks an unpacked bundle too. The bundle's
// digest is the SHA-256 of the manifest: a release binary carries it
// (see [ReleaseBundle]), so verifying the manifest against it and every
// file against the manifest verifies the whole bundle against the
// binary, with a single value set at link time.
const BundleManifest = "MANIFEST.sha256"

// Bounds on what an install reads from a bundle, which may come from
// anywhere: the manifest and the files are streamed, never held whole.
const (
	maxManifestSize   = 8 << 20  // about 90,000 lines
	maxBundleFiles    = 50_000   // CPython's library is about 4,000
	maxBundleFileSize = 1 << 30  // one file (python.wasm is 11 MB)
	maxBundleSize     = 4 << 30  // all files, unpacked
	maxBundlePath     = 1 << 10  // bytes of one path
	maxBundleDepth    = 32       // folders in one path
	maxBundleDownload = 2 << 30  // bytes fetched from a URL (packed)
	maxRedirects      = 5        // HTTP redirects followed on a fetch
	bundleCopyBuffer  = 64 << 10 // streaming buffer
)

// bundleFolder is each language's folder in a bundle and in the
// interpreters folder.
func bundleFolder(language string) string {
	if language == Python {
		return path.Base(filepath.ToSlash(pythonDir("")))
	}
	return language
}

// bundleLanguages are the languages a bundle may carry, in the order
// WriteBundle writes them.
var bundleLanguages = []string{JS, JSTS, Python, Shell}

// bundleSkip reports whether a file of an installed interpreter stays out
// of a bundle: the compiled packages' test suites (tests/, tens of MB that
// only skillrun's own tests run) and what an install leaves aside.
func bundleSkip(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	return first == "tests" || strings.HasSuffix(first, ".old")
}

// A manifestEntry is one line of a manifest: a file and its digest.
type manifestEntry struct {
	path string // slash-separated, relative to the bundle's root
	sum  string // lower-case hex SHA-256
}

// WriteBundle writes a bundle of the interpreters of languages (all four
// when empty) installed in dir to w, and returns its digest. Every
// interpreter must be installed. Each file is hashed twice, once for the
// manifest and once as it is written, and a file that changed between the
// two fails the bundle, naming it.
func WriteBundle(w io.Writer, dir string, languages []string) (digest string, err error) {
	if len(languages) == 0 {
		languages = bundleLanguages
	}
	for _, lang := range languages {
		if _, err := Find(dir, lang); err != nil {
			return "", err
		}
	}
	// Under the folder's lock no install swaps an interpreter while its
	// files are hashed and written (swapIn takes the same lock).
	unlock, err := lockDir(dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	var entries []manifestEntry
	for _, lang := range languages {
		folder := bundleFolder(lang)
		root := filepath.Join(dir, folder)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil || rel == "." {
				return err
			}
			rel = filepath.ToSlash(rel)
			if bundleSkip(rel) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch t := d.Type(); {
			case t.IsDir():
				return nil
			case t.IsRegular():
				sum, err := safefile.SHA256(p)
				if err != nil {
					return err
				}
				entries = append(entries, manifestEntry{folder + "/" + rel, sum})
				return nil
			default:
				return fmt.Errorf("%s is not a regular file or folder (%s); a bundle holds only those", p, t)
			}
		})
		if err != nil {
			return "", fmt.Errorf("bundling %s: %w", lang, err)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	manifest := formatManifest(entries)

	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	if err := writeTarFile(tw, BundleManifest, bytes.NewReader(manifest), int64(len(manifest)), ""); err != nil {
		return "", err
	}
	written := map[string]bool{}
	for _, e := range entries {
		if err := writeTarDirs(tw, path.Dir(e.path), written); err != nil {
			return "", err
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(e.path)))
		if err != nil {
			return "", err
		}
		fi, err := f.Stat()
		if err == nil {
			err = writeTarFile(tw, e.path, f, fi.Size(), e.sum)
		}
		_ = f.Close()
		if err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	sum := sha256.Sum256(manifest)
	return hex.EncodeToString(sum[:]), nil
}

// writeTarDirs writes a folder entry for d and each folder above it not
// yet written.
func writeTarDirs(tw *tar.Writer, d string, written map[string]bool) error {
	if d == "." || written[d] {
		return nil
	}
	if err := writeTarDirs(tw, path.Dir(d), written); err != nil {
		return err
	}
	written[d] = true
	return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, Format: tar.FormatPAX})
}

// writeTarFile writes one regular file of size bytes from r; with a
// non-empty want, the bytes written must hash to it.
func writeTarFile(tw *tar.Writer, name string, r io.Reader, size int64, want string) error {
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, Format: tar.FormatPAX}); err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tw, h), io.LimitReader(r, size)); err != nil {
		return fmt.Errorf("bundling %s: %w", name, err)
	}
	if want != "" && hex.EncodeToString(h.Sum(nil)) != want {
		return fmt.Errorf("bundling %s: the file changed while the bundle was written", name)
	}
	return nil
}

// formatManifest writes entries in sha256sum's format.
func formatManifest(entries []manifestEntry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%s  %s\n", e.sum, e.path)
	}
	return b.Bytes()
}

// manifestLine is one line of sha256sum's output for a file name that
// needs no escaping.
var manifestLine = regexp.MustCompile(`^([0-9a-f]{64})  (\S.*)$`)

// parseManifest reads a manifest and checks every path: relative,
// clean, inside one of the interpreters' folders, bounded in length and
// depth, and listed once. Errors name the line.
func parseManifest(data []byte) (map[string]string, error) {
	files := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxBundlePath+80)
	known := map[string]bool{}
	for _, l := range bundleLanguages {
		known[bundleFolder(l)] = true
	}
	for n := 1; sc.Scan(); n++ {
		m := manifestLine.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("%s line %d: want \"SHA256  PATH\" (64 lower-case hex digits, two spaces, a path)", BundleManifest, n)
		}
		p := m[2]
		if err := checkBundlePath(p); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", BundleManifest, n, err)
		}
		if first, _, _ := strings.Cut(p, "/"); !known[first] {
			return nil, fmt.Errorf("%s line %d: %s is not in an interpreter's folder (%s)", BundleManifest, n, p, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		if _, dup := files[p]; dup {
			return nil, fmt.Errorf("%s line %d: %s is listed twice", BundleManifest, n, p)
		}
		if len(files) == maxBundleFiles {
			return nil, fmt.Errorf("%s lists more than %d files", BundleManifest, maxBundleFiles)
		}
		files[p] = m[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", BundleManifest, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s lists no files", BundleManifest)
	}
	return files, nil
}

// checkBundlePath refuses a path that could land outside the folder a
// bundle unpacks into or that no install needs: absolute, with . or ..
// elements, backslashes or control characters, too long or too deep.
func checkBundlePath(p string) error {
	switch {
	case len(p) > maxBundlePath:
		return fmt.Errorf("a path of %d bytes (at most %d)", len(p), maxBundlePath)
	case strings.Count(p, "/") >= maxBundleDepth:
		return fmt.Errorf("%s is more than %d folders deep", p, maxBundleDepth)
	case !fs.ValidPath(p) || p == ".":
		return fmt.Errorf("%q is not a clean relative path", p)
	case strings.ContainsAny(p, "\\:"):
		return fmt.Errorf("%q has a backslash or colon", p)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%q has a control character", p)
		}
	}
	return nil
}

// errBundleDigest matches an install refused because the bundle's
// manifest is not the one expected.
var errBundleDigest = errors.New("bundle digest mismatch")
