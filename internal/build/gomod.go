package build

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxGoMod bounds the go.mod read to check its replace directives.
const maxGoMod = 1 << 20

// findGoMod returns the folder of the go.mod that governs dir, looking in
// dir and its parents up to and including top, or "" if there is none.
func findGoMod(dir, top string) string {
	for {
		if isFile(filepath.Join(dir, "go.mod")) {
			return dir
		}
		if dir == top {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir || !strings.HasPrefix(dir, top) {
			return ""
		}
		dir = parent
	}
}

// checkReplaces refuses the replace directives of the go.mod in modDir
// that name a local folder outside top: a skill's go.mod could otherwise
// compile any Go package on the host into its module
// (`replace example.com/x => /home/you/secrets`). name is how errors
// refer to the go.mod. Landlock would deny the read as well; this check
// says why, and holds when the build runs unconfined.
func checkReplaces(modDir, top, name string) error {
	data, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return err
	}
	if len(data) > maxGoMod {
		return fmt.Errorf("%s is larger than %d KiB", name, maxGoMod>>10)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxGoMod)
	inBlock := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case inBlock && f[0] == ")":
			inBlock = false
			continue
		case !inBlock && f[0] == "replace" && len(f) == 2 && f[1] == "(":
			inBlock = true
			continue
		case !inBlock && f[0] == "replace":
			f = f[1:]
		case !inBlock:
			continue
		}
		// f is "old [version] => new [version]". A line with more than one
		// "=>" is not valid go.mod (go refuses it), but every word after
		// an arrow is checked all the same: a check that guesses which
		// arrow the go command would take could guess wrong.
		for i, w := range f {
			if w != "=>" || i+1 >= len(f) {
				continue // go build reports the syntax error
			}
			if err := checkReplaceTarget(modDir, top, name, n, f[0], f[i+1]); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// checkReplaceTarget refuses target, the replacement of old on line n,
// when it names a local folder outside top.
func checkReplaceTarget(modDir, top, name string, n int, old, target string) error {
	if uq, err := strconv.Unquote(target); err == nil {
		target = uq
	}
	if !isLocalModPath(target) {
		return nil // a module path: fetched from the module cache
	}
	if filepath.IsAbs(target) {
		return fmt.Errorf("%s:%d: replace %s => %s names a folder outside the skill by absolute path; a build reads only the skill folder: put the module inside the skill folder (or vendor it with go mod vendor) and replace it with a relative path", name, n, old, target)
	}
	abs := filepath.Join(modDir, filepath.FromSlash(target))
	if rel, err := filepath.Rel(top, abs); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s:%d: replace %s => %s leads outside the skill folder; a build reads only the skill folder: put the module inside the skill folder (or vendor it with go mod vendor)", name, n, old, target)
	}
	return nil
}

// isLocalModPath reports whether a replacement names a folder rather than
// a module: as in cmd/go, a path that is absolute or starts with ./ or ../.
func isLocalModPath(p string) bool {
	return filepath.IsAbs(p) || strings.HasPrefix(p, "/") || p == "." || p == ".." ||
		strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") ||
		strings.HasPrefix(p, `.\`) || strings.HasPrefix(p, `..\`)
}
