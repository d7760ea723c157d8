package pydeps

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A cache is the folder of verified wheels (wheels/<sha256>.whl), unpacked
// sites (sites/<hash>/) and remembered resolutions (resolved/<key>.json).
// Wheels are named by their content's hash so that a file in the cache
// is the file the index vouched for, whoever downloaded it.
type cache struct{ dir string }

func (c *cache) wheelPath(sum string) string {
	return filepath.Join(c.dir, "wheels", sum+".whl")
}

// fetch returns the verified wheel for a file: from the cache when the
// index's hash names one there, else downloaded (or copied from
// find-links), hashed, compared with the index's hash and stored.
func (c *cache) fetch(ctx context.Context, o *Options, name string, f distFile, v Version) (*cachedWheel, error) {
	label := name + " " + v.String()
	sum := ""
	if f.SHA256 != "" {
		if p := c.wheelPath(f.SHA256); fileHash(p) == f.SHA256 {
			sum = f.SHA256
		}
	}
	if sum == "" {
		got, err := c.download(ctx, o, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		if f.SHA256 != "" && got != f.SHA256 {
			return nil, fmt.Errorf("%s: sha256 mismatch: index says %s, got %s", label, f.SHA256, got)
		}
		sum = got
	}
	cw := &cachedWheel{Wheel: Wheel{File: f.Filename, SHA256: sum}, path: c.wheelPath(sum)}
	if err := cw.load(); err != nil {
		return nil, err
	}
	if wv, err := ParseVersion(cw.Version); err != nil || wv.Compare(v) != 0 {
		return nil, fmt.Errorf("%s: METADATA says version %s, the file name %s", f.Filename, cw.Version, v)
	}
	return cw, nil
}

// load checks the cached archive and reads its metadata.
func (cw *cachedWheel) load() error {
	zr, err := openWheel(cw)
	if err != nil {
		return err
	}
	defer func() { _ = zr.Close() }()
	meta, err := readMetadata(cw.File, &zr.Reader)
	if err != nil {
		return err
	}
	cw.meta, cw.Name, cw.Version = meta, meta.name, meta.version
	cw.version, err = ParseVersion(meta.version)
	if err != nil {
		return fmt.Errorf("%s: METADATA: %w", cw.File, err)
	}
	return nil
}

// download fetches a file into the cache under its hash and returns the
// hash. It writes to a temporary file first, so that an interrupted
// download never looks like a cached wheel.
func (c *cache) download(ctx context.Context, o *Options, f distFile) (string, error) {
	dir := filepath.Join(c.dir, "wheels")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var src io.ReadCloser
	if f.Local {
		fh, err := os.Open(f.URL)
		if err != nil {
			return "", err
		}
		src = fh
		fmt.Fprintf(o.Progress, "copying %s from %s\n", f.Filename, filepath.Dir(f.URL))
	} else {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
		if err != nil {
			return "", err
		}
		resp, err := o.Client.Do(req)
		if err != nil {
			return "", redactErr(err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return "", fmt.Errorf("GET %s: %s", redact(f.URL), resp.Status)
		}
		src = resp.Body
		size := ""
		if resp.ContentLength > 0 {
			size = fmt.Sprintf(" (%d KiB)", (resp.ContentLength+1023)/1024)
		}
		if f.SHA256 == "" {
			size += "; the index gives no sha256 to check it against"
		}
		fmt.Fprintf(o.Progress, "downloading %s%s\n", f.Filename, size)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // after the rename, a no-op
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, maxWheelBytes+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", redactErr(err)
	}
	if n > maxWheelBytes {
		return "", fmt.Errorf("%s is larger than %d MiB", f.Filename, maxWheelBytes>>20)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if err := os.Rename(tmp.Name(), c.wheelPath(sum)); err != nil {
		return "", err
	}
	return sum, nil
}

// fileHash returns the hex sha256 of a file, "" if it cannot be read.
func fileHash(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lockKey names a resolution by what decides it: the requirements (in a
// canonical order and spelling), the sources, and the packages the
// interpreter provides (a new built-in version, or one built in that
// was fetched before, changes the answer).
func lockKey(reqs []Requirement, o *Options) (string, error) {
	var lines []string
	for _, r := range reqs {
		extras := make([]string, len(r.Extras))
		for i, e := range r.Extras {
			extras[i] = Normalize(e)
		}
		slices.Sort(extras)
		lines = append(lines, fmt.Sprintf("req %s[%s]%s;%s", Normalize(r.Name), strings.Join(extras, ","), r.Specifier, r.Marker))
	}
	for _, p := range o.Provided {
		lines = append(lines, fmt.Sprintf("provided %s %s", Normalize(p.Name), p.Version))
	}
	slices.Sort(lines)
	lines = append([]string{"pydeps-lock 1", "index " + o.IndexURL}, lines...)
	if o.FindLinks != "" {
		// The folder's wheels are part of the question: adding one may
		// change the answer.
		entries, err := os.ReadDir(o.FindLinks)
		if err != nil {
			return "", fmt.Errorf("find-links: %w", err)
		}
		lines = append(lines, "find-links "+o.FindLinks)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".whl") {
				lines = append(lines, fmt.Sprintf("file %s %d %d", e.Name(), info.Size(), info.ModTime().UnixNano()))
			}
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:]), nil
}

type lockFile struct {
	Wheels []Wheel `json:"wheels"`
}

// loadLock returns a remembered resolution whose wheels are all in the
// cache, intact.
func (c *cache) loadLock(key string) ([]cachedWheel, bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, "resolved", key+".json"))
	if err != nil {
		return nil, false
	}
	var lf lockFile
	if json.Unmarshal(b, &lf) != nil {
		return nil, false
	}
	var out []cachedWheel
	for _, w := range lf.Wheels {
		cw := cachedWheel{Wheel: w, path: c.wheelPath(w.SHA256)}
		if fileHash(cw.path) != w.SHA256 {
			return nil, false
		}
		cw.version, err = ParseVersion(w.Version)
		if err != nil {
			return nil, false
		}
		out = append(out, cw)
	}
	return out, true
}

// saveLock remembers a resolution, atomically.
func (c *cache) saveLock(key string, wheels []cachedWheel) error {
	lf := lockFile{Wheels: []Wheel{}}
	for _, w := range wheels {
		lf.Wheels = append(lf.Wheels, w.Wheel)
	}
	b, err := json.MarshalIndent(lf, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(c.dir, "resolved", key+".json"), b)
}

func writeAtomic(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// redact hides the password of a URL with credentials (a private index).
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

// redactErr keeps credentials out of net/http's errors, which quote URLs.
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redact(ue.URL)
	}
	return err
}

// A cachedWheel is a verified wheel file in the cache.
type cachedWheel struct {
	Wheel
	path    string
	version Version
	meta    wheelMeta
}

// openWheel opens a cached wheel and checks its archive.
func openWheel(cw *cachedWheel) (*zip.ReadCloser, error) {
	zr, err := zip.OpenReader(cw.path)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%s: %w", cw.File, err)
	}
	if err := checkArchive(cw.File, &zr.Reader); err != nil {
		_ = zr.Close()
		return nil, err
	}
	return zr, nil
}
