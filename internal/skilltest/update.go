package skilltest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/tools/txtar"

	"github.com/skillrun/skillrun/internal/tomlx"
)

// update rewrites the case file's exact expectations (stdout, stderr and
// expected files) from what the run did, keeping everything else of the
// file as written, comments included, and sets the case's expectations to
// match. The exit status, contains and matches expectations are the
// author's to change. The file is replaced atomically. It returns what it
// rewrote; the caller checks the case again.
func (r *Runner) update(c *Case, res *Result, ws string) ([]string, error) {
	data, err := readBounded(c.File)
	if err != nil {
		return nil, err
	}
	actual := map[string]string{} // expected file name -> what the run wrote
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	for name := range c.Expect.Files {
		rel, _ := relPath(name)
		if b, err := root.ReadFile(rel); err == nil {
			actual[name] = string(b)
		}
	}

	var updated []string
	var errs []error
	stdout, stderr := res.Stdout, res.Stderr
	rewrote := func(what string, expect *string, value string) {
		*expect = value
		updated = append(updated, what)
	}
	src := data
	if c.txtar != nil {
		src = c.txtar.Comment
	}
	lines, _ := tomlx.LocateKeys(src)
	set := func(key toml.Key, value string) bool {
		if _, ok := lines[key.String()]; !ok {
			return false
		}
		out, err := setTOMLString(src, lines[key.String()], key[len(key)-1], value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", c.File, key, err))
			return false
		}
		src = out
		lines, _ = tomlx.LocateKeys(src)
		return true
	}
	if e := c.Expect.Stdout; e != nil && *e != stdout && set(toml.Key{"expect", "stdout"}, stdout) {
		rewrote("stdout", e, stdout)
	}
	if e := c.Expect.Stderr; e != nil && *e != stderr && set(toml.Key{"expect", "stderr"}, stderr) {
		rewrote("stderr", e, stderr)
	}
	for _, name := range sortedKeys(c.Expect.Files) {
		if got, ok := actual[name]; ok && got != c.Expect.Files[name] && set(toml.Key{"expect", "files", name}, got) {
			c.Expect.Files[name] = got
			updated = append(updated, name)
		}
	}
	if c.txtar != nil {
		a := &txtar.Archive{Comment: src}
		for _, f := range c.txtar.Files {
			switch {
			case f.Name == "stdout" && string(f.Data) != stdout:
				f.Data = []byte(stdout)
				rewrote("stdout", c.Expect.Stdout, stdout)
			case f.Name == "stderr" && string(f.Data) != stderr:
				f.Data = []byte(stderr)
				rewrote("stderr", c.Expect.Stderr, stderr)
			case strings.HasPrefix(f.Name, "expect/"):
				name := strings.TrimPrefix(f.Name, "expect/")
				if got, ok := actual[name]; ok && got != string(f.Data) {
					f.Data = []byte(got)
					c.Expect.Files[name] = got
					updated = append(updated, name)
				}
			}
			a.Files = append(a.Files, f)
		}
		src = txtar.Format(a)
	}
	if len(updated) > 0 {
		if err := writeAtomic(c.File, src); err != nil {
			return nil, errors.Join(append(errs, err)...)
		}
	}
	return updated, errors.Join(errs...)
}

// setTOMLString replaces the string value of the key name defined at the
// start of line (1-based) of src with value.
func setTOMLString(src []byte, line int, name, value string) ([]byte, error) {
	start := 0
	for i := 1; i < line; i++ {
		j := bytes.IndexByte(src[start:], '\n')
		if j < 0 {
			return nil, errors.New("line not found")
		}
		start += j + 1
	}
	rest := src[start:]
	eq := bytes.IndexByte(rest, '=')
	nl := bytes.IndexByte(rest, '\n')
	if eq < 0 || (nl >= 0 && eq > nl) {
		return nil, errors.New("not a key = value line (an inline table entry?); write it as a key of its own table")
	}
	keyText := strings.Trim(strings.TrimSpace(string(rest[:eq])), `"'`)
	if keyText != name && !strings.HasSuffix(keyText, "."+name) {
		return nil, errors.New("not a key = value line (an inline table entry?); write it as a key of its own table")
	}
	v := start + eq + 1
	for v < len(src) && (src[v] == ' ' || src[v] == '\t') {
		v++
	}
	end, err := stringEnd(src, v)
	if err != nil {
		return nil, err
	}
	out := append([]byte{}, src[:v]...)
	out = append(out, encodeTOMLString(value)...)
	return append(out, src[end:]...), nil
}

// stringEnd returns the offset just past the TOML string value at i.
func stringEnd(src []byte, i int) (int, error) {
	s := src[i:]
	switch {
	case bytes.HasPrefix(s, []byte(`"""`)), bytes.HasPrefix(s, []byte(`'''`)):
		delim := s[:3]
		for j := 3; j+3 <= len(s); j++ {
			if delim[0] == '"' && s[j] == '\\' {
				j++
				continue
			}
			if bytes.HasPrefix(s[j:], delim) {
				k := j + 3
				for n := 0; n < 2 && k < len(s) && s[k] == delim[0]; n++ {
					k++ // up to two quotes end the content
				}
				return i + k, nil
			}
		}
	case len(s) > 0 && (s[0] == '"' || s[0] == '\''):
		for j := 1; j < len(s) && s[j] != '\n'; j++ {
			if s[0] == '"' && s[j] == '\\' {
				j++
				continue
			}
			if s[j] == s[0] {
				return i + j + 1, nil
			}
		}
	default:
		return 0, errors.New("the value is not a string")
	}
	return 0, errors.New("unterminated string")
}

// encodeTOMLString writes value as a TOML string: a multi-line literal
// string when it has lines and nothing that needs escaping, else a basic
// string with escapes.
func encodeTOMLString(value string) string {
	plain := !strings.Contains(value, "'''") && !strings.HasSuffix(value, "'")
	for _, r := range value {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			plain = false
		}
	}
	if plain && strings.Contains(value, "\n") {
		return "'''\n" + value + "'''"
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]string{"v": value}); err != nil {
		return fmt.Sprintf("%q", value) // not reached: a string always encodes
	}
	return strings.TrimSuffix(strings.TrimPrefix(b.String(), "v = "), "\n")
}

// writeAtomic replaces file with data through a temporary file in its
// folder, keeping its mode.
func writeAtomic(file string, data []byte) error {
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
