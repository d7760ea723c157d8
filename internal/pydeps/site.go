package pydeps

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Site is the result: the wheels and one folder holding all of them
// unpacked (a site-packages tree), content-addressed:
// <CacheDir>/sites/<hash of the sorted wheel hashes>/, created atomically
// (written to a temporary folder, then renamed) and reused when present.
// Runs mount Dir read-only on the interpreter's path; since its name is
// its content, two skills needing the same wheels share one tree, and a
// tree is never changed once made.
type Site struct {
	Wheels []Wheel
	Dir    string
	// Provided are the packages of [Options.Provided] that the
	// requirements or the wheels' dependencies name: the interpreter has
	// them built in, so Dir holds no copy of them.
	Provided []Provided
}

// siteHash names a set of wheels.
func siteHash(wheels []cachedWheel) string {
	sums := make([]string, len(wheels))
	for i, w := range wheels {
		sums[i] = w.SHA256
	}
	slices.Sort(sums)
	sum := sha256.Sum256([]byte(strings.Join(sums, "\n")))
	return hex.EncodeToString(sum[:])
}

// site returns the site of these wheels, unpacking it if it is not in
// the cache yet.
func (c *cache) site(wheels []cachedWheel) (*Site, error) {
	s := &Site{Wheels: []Wheel{}, Dir: filepath.Join(c.dir, "sites", siteHash(wheels))}
	for _, w := range wheels {
		s.Wheels = append(s.Wheels, w.Wheel)
	}
	if fi, err := os.Stat(s.Dir); err == nil && fi.IsDir() {
		return s, nil
	}
	parent := filepath.Dir(s.Dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-")
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if !keep {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := unpackAll(tmp, wheels); err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, s.Dir); err != nil {
		// Another process made the same site meanwhile: use it.
		if fi, serr := os.Stat(s.Dir); serr == nil && fi.IsDir() {
			return s, nil
		}
		return nil, err
	}
	keep = true
	return s, nil
}

// unpackAll unpacks every wheel into dir through an os.Root, so that
// even a member name that passed checkArchive cannot leave it.
func unpackAll(dir string, wheels []cachedWheel) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	written := map[string]string{}
	for i := range wheels {
		zr, err := openWheel(&wheels[i])
		if err != nil {
			return err
		}
		err = unpackWheel(wheels[i].File, &zr.Reader, root, written)
		_ = zr.Close()
		if err != nil {
			return fmt.Errorf("unpack: %w", err)
		}
	}
	return nil
}

// Provides reports whether the site holds a top-level module: a package
// folder (regular or namespace) or a module file of that name. It is how
// an import nothing declared is matched to what was pinned, by what the
// wheels hold rather than by their names. (The interpreter's built-in
// packages are not in the site: [Need.UseProvided] settles their imports
// before resolution.)
func (s *Site) Provides(module string) bool {
	if module == "" || strings.ContainsAny(module, `/\.`) {
		return false
	}
	if fi, err := os.Stat(filepath.Join(s.Dir, module)); err == nil && fi.IsDir() {
		return true
	}
	fi, err := os.Stat(filepath.Join(s.Dir, module+".py"))
	return err == nil && fi.Mode().IsRegular()
}
