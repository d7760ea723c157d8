package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// Bounds on [Skill.Digest], which reads every file of a skill.
const (
	maxDigestEntries = maxLinkScanEntries
	maxDigestBytes   = 1 << 30
)

// Digest returns "sha256:HEX", a digest of everything in the skill's
// folder (or archive): for each file, folder and link, in lexical order
// of their slash paths, its kind, its path, and its content (the
// SHA-256 of a file's bytes, a link's target). Modes and times are left
// out, so a copy or a fresh clone of the same files has the same digest,
// and any change to a file, a name or a link changes it. An operator pins
// it in a policy (digest = "...") so a grant follows only these files.
//
// Digest is bounded (100,000 entries, 1 GiB of content); it reads
// no special file (a FIFO, a device), recording only its kind.
func (s *Skill) Digest() (string, error) {
	if s.files == nil {
		return "", errors.New("skill has no files to digest")
	}
	fsys, closer, err := s.files.open()
	if err != nil {
		return "", err
	}
	defer closer.Close()
	h := sha256.New()
	var entries int
	var total int64
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entries++; entries > maxDigestEntries {
			return fmt.Errorf("more than %d files and folders", maxDigestEntries)
		}
		t := d.Type()
		switch {
		case d.IsDir():
			fmt.Fprintf(h, "dir %q\n", p)
		case t&fs.ModeSymlink != 0:
			target, err := fs.ReadLink(fsys, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link %q %q\n", p, target)
		case t.IsRegular():
			n, sum, err := hashFile(fsys, p, maxDigestBytes-total)
			if err != nil {
				return err
			}
			total += n
			fmt.Fprintf(h, "file %q %d %x\n", p, n, sum)
		default:
			fmt.Fprintf(h, "other %q %s\n", p, t.String())
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%s: digest: %w", s.Dir, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile returns the size and SHA-256 of the file at p, failing when it
// holds more than limit bytes.
func hashFile(fsys fs.FS, p string, limit int64) (int64, []byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return 0, nil, err
	}
	if n > limit {
		return 0, nil, fmt.Errorf("the skill's files hold more than %d MiB", maxDigestBytes>>20)
	}
	return n, h.Sum(nil), nil
}
