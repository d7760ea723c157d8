package toolset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/skills"
)

// Watch reloads the set whenever the files under its catalog's roots
// change (name, size or modification time), checking every interval
// until ctx ends: it discovers the roots again (problems said on the
// set's Warn), serves the new catalog ([Set.Reload]) and calls reloaded
// with it. Polling keeps it portable and dependency-free; each walk is
// bounded.
func (s *Set) Watch(ctx context.Context, every time.Duration, reloaded func(*Catalog)) {
	roots := s.Catalog().Roots
	last := fingerprint(roots)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if fp := fingerprint(roots); fp != last {
				last = fp
				c := Discover(roots, s.cfg.Warn)
				s.Reload(c)
				if reloaded != nil {
					reloaded(c)
				}
			}
		}
	}
}

// maxWatchEntries bounds one fingerprint walk.
const maxWatchEntries = 20000

// fingerprint sums the names, sizes and times of the files under roots.
func fingerprint(roots []skills.Root) string {
	h := sha256.New()
	n := 0
	for _, r := range roots {
		_ = filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil //nolint:nilerr // an unreadable entry is left out of the fingerprint
			}
			if n++; n > maxWatchEntries {
				return fs.SkipAll
			}
			if d.IsDir() && p != r.Dir && (strings.HasPrefix(d.Name(), ".") && d.Name() != mdskill.Folder || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
			}
			return nil
		})
		// The Markdown skills' folder may be a symbolic link, which the
		// walk does not follow: its files and its skill folders' files
		// are summed here.
		md := filepath.Join(r.Dir, mdskill.Folder)
		if fi, err := os.Lstat(md); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			sumFolder(h, md, 2, &n)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sumFolder sums the names, sizes and times of dir's entries, and of its
// folders' down to depth levels, following symbolic links.
func sumFolder(h io.Writer, dir string, depth int, n *int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if *n++; *n > maxWatchEntries {
			return
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
		if fi.IsDir() && depth > 1 && !strings.HasPrefix(e.Name(), ".") {
			sumFolder(h, p, depth-1, n)
		}
	}
}
