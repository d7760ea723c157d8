package pydeps

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Pin is what `skillrun deps` resolved for one skill: the site its
// runs mount on Python's path. Pins live in the cache, never in the
// skill (skillrun does not write into skill folders), keyed by the
// skill's absolute path.
type Pin struct {
	Skill        string   `json:"skill"`        // the skill folder, absolute
	SiteDir      string   `json:"site"`         // the Site's Dir
	Requirements []string `json:"requirements"` // what was asked, as written, with where it came from
	Wheels       []Wheel  `json:"wheels"`
}

// DefaultCacheDir is <os.UserCacheDir()>/skillrun/pydeps, where Resolve
// keeps wheels and sites and SavePin keeps pins when no folder is given.
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: %w", err)
	}
	return filepath.Join(dir, "skillrun", "pydeps"), nil
}

// pinPath is the file of skillDir's pin in cacheDir.
func pinPath(cacheDir, skillDir string) (string, string, error) {
	if cacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return "", "", err
		}
		cacheDir = d
	}
	abs, err := filepath.Abs(skillDir)
	if err != nil {
		return "", "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cacheDir, "pins", hex.EncodeToString(sum[:16])+".json"), abs, nil
}

// SavePin records site as the packages of the skill at skillDir.
func SavePin(cacheDir, skillDir string, site *Site, reqs []Requirement) error {
	file, abs, err := pinPath(cacheDir, skillDir)
	if err != nil {
		return err
	}
	p := Pin{Skill: abs, SiteDir: site.Dir, Wheels: site.Wheels}
	for _, r := range reqs {
		p.Requirements = append(p.Requirements, strings.TrimSpace(r.Name+r.Specifier)+" ("+r.Source+")")
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// LoadPin returns the pin of the skill at skillDir; an error matching
// fs.ErrNotExist when `skillrun deps` has not been run for it. A pin
// whose site is not a folder of the cache's sites, or is gone, is an
// error: runs mount only what Resolve made.
func LoadPin(cacheDir, skillDir string) (*Pin, error) {
	if cacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		cacheDir = d
	}
	file, _, err := pinPath(cacheDir, skillDir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var p Pin
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("pin %s: %w", file, err)
	}
	sites := filepath.Join(cacheDir, "sites") + string(filepath.Separator)
	if !strings.HasPrefix(filepath.Clean(p.SiteDir), sites) {
		return nil, fmt.Errorf("pin %s: its site %s is not in %s", file, p.SiteDir, sites)
	}
	if fi, err := os.Stat(p.SiteDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("pin %s: its site %s is gone (run `skillrun deps` again): %w", file, p.SiteDir, err)
	}
	return &p, nil
}
