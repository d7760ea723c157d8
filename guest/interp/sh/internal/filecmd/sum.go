package filecmd

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// algorithms maps each checksum command to its hash and the name
// --tag and BSD-style check lines use.
var algorithms = map[string]struct {
	tag string
	new func() hash.Hash
}{
	"md5sum":    {"MD5", md5.New},
	"sha1sum":   {"SHA1", sha1.New},
	"sha224sum": {"SHA224", sha256.New224},
	"sha256sum": {"SHA256", sha256.New},
	"sha384sum": {"SHA384", sha512.New384},
	"sha512sum": {"SHA512", sha512.New},
}

func sumCmd(e *proc.Env, args []string) int {
	name := args[0]
	alg, ok := algorithms[name]
	if !ok {
		alg, name = algorithms["sha256sum"], "sha256sum"
	}
	opts, files, st, ok := parseArgs(e, name, 1, proc.Getopt{Spec: "b,binary c,check ,ignore-missing ,quiet ,status ,strict ,tag t,text w,warn z,zero"}, args[1:])
	if !ok {
		return st
	}
	var check, binary, tag, zero bool
	var cf checkFlags
	for _, o := range opts {
		switch o.Key {
		case "b":
			binary = true
		case "c":
			check = true
		case "ignore-missing":
			cf.ignoreMissing = true
		case "quiet":
			cf.quiet = true
		case "status":
			cf.status = true
		case "strict":
			cf.strict = true
		case "tag":
			tag = true
		case "w":
			cf.warn = true
		case "z":
			zero = true
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	if check {
		status := 0
		for _, f := range files {
			if checkSums(e, name, alg.tag, alg.new, f, cf) != 0 {
				status = 1
			}
		}
		return status
	}
	w := bufio.NewWriter(e.Stdout)
	defer func() { _ = w.Flush() }()
	status := 0
	for _, f := range files {
		sum, err := hashFile(e, f, alg.new)
		if err != nil {
			_ = w.Flush()
			e.Errorf(name, "%s: %s", qf(f), proc.ErrorText(err))
			status = 1
			continue
		}
		// Names with a backslash or newline are escaped, and the line
		// marked with a leading backslash, so that -c can read them back.
		shown, esc := f, ""
		if !zero && strings.ContainsAny(f, "\\\n\r") {
			shown = strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`).Replace(f)
			esc = `\`
		}
		end := "\n"
		if zero {
			end = "\x00"
		}
		switch {
		case tag:
			fmt.Fprintf(w, "%s%s (%s) = %s%s", esc, alg.tag, shown, sum, end)
		case binary:
			fmt.Fprintf(w, "%s%s *%s%s", esc, sum, shown, end)
		default:
			fmt.Fprintf(w, "%s%s  %s%s", esc, sum, shown, end)
		}
	}
	return status
}

func hashFile(e *proc.Env, name string, newHash func() hash.Hash) (string, error) {
	f, err := e.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := newHash()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type checkFlags struct {
	ignoreMissing, quiet, status, strict, warn bool
}

// checkSums verifies the lines of one -c file, with GNU's messages and
// closing warnings.
func checkSums(e *proc.Env, name, tag string, newHash func() hash.Hash, list string, cf checkFlags) int {
	f, err := e.Open(list)
	if err != nil {
		e.Errorf(name, "%s: %s", qf(list), proc.ErrorText(err))
		return 1
	}
	defer f.Close()
	display := list
	if list == "-" {
		display = "standard input"
	}
	hexLen := newHash().Size() * 2
	var bad, failed, unreadable, good int
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		want, file, ok := parseCheckLine(line, tag, hexLen)
		if !ok {
			bad++
			if cf.warn {
				e.Errorf(name, "%s: %d: improperly formatted %s checksum line", qf(display), lineNo, tag)
			}
			continue
		}
		good++
		got, err := hashFile(e, file, newHash)
		if err != nil {
			if cf.ignoreMissing && isNotExist(err) {
				continue
			}
			e.Errorf(name, "%s: %s", qf(file), proc.ErrorText(err))
			unreadable++
			if !cf.status {
				fmt.Fprintf(e.Stdout, "%s: FAILED open or read\n", file)
			}
			continue
		}
		if !strings.EqualFold(got, want) {
			failed++
			if !cf.status {
				fmt.Fprintf(e.Stdout, "%s: FAILED\n", file)
			}
		} else if !cf.quiet && !cf.status {
			fmt.Fprintf(e.Stdout, "%s: OK\n", file)
		}
	}
	if good == 0 {
		e.Errorf(name, "%s: no properly formatted checksum lines found", qf(display))
		return 1
	}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
	if !cf.status {
		if bad > 0 {
			e.Errorf(name, "WARNING: %d %s improperly formatted", bad, plural(bad, "line is", "lines are"))
		}
		if unreadable > 0 {
			e.Errorf(name, "WARNING: %d listed %s could not be read", unreadable, plural(unreadable, "file", "files"))
		}
		if failed > 0 {
			e.Errorf(name, "WARNING: %d computed %s did NOT match", failed, plural(failed, "checksum", "checksums"))
		}
	}
	if failed > 0 || unreadable > 0 || (cf.strict && bad > 0) {
		return 1
	}
	return 0
}

// parseCheckLine reads "HASH  FILE", "HASH *FILE" or "TAG (FILE) = HASH",
// with a leading backslash marking an escaped name.
func parseCheckLine(line, tag string, hexLen int) (sum, file string, ok bool) {
	escaped := strings.HasPrefix(line, `\`)
	if escaped {
		line = line[1:]
	}
	unescape := func(s string) string {
		if !escaped {
			return s
		}
		return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r").Replace(s)
	}
	if rest, found := strings.CutPrefix(line, tag+" ("); found {
		i := strings.LastIndex(rest, ") = ")
		if i < 0 || len(rest)-i-4 != hexLen {
			return "", "", false
		}
		return rest[i+4:], unescape(rest[:i]), isHex(rest[i+4:])
	}
	if len(line) < hexLen+2 || !isHex(line[:hexLen]) || line[hexLen] != ' ' || (line[hexLen+1] != ' ' && line[hexLen+1] != '*') {
		return "", "", false
	}
	file = line[hexLen+2:]
	if file == "" {
		return "", "", false
	}
	return line[:hexLen], unescape(file), true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}
