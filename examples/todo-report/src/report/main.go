// Command report collects the TODO and FIXME comments of a workspace into
// a Markdown report.
//
// Usage:
//
//	report
//
// It is the todo-report skill's script. It walks the workspace, finds
// every line containing the word TODO or FIXME, writes them as file:line
// entries to out/todo.md in the workspace, and prints a one-line summary.
// The out folder itself, hidden folders (.git) and binary files are
// skipped.
//
// Built for GOOS=wasip1 it runs in skillrun's sandbox, where the workspace
// is mounted at /workspace (readable, with out/ writable) and nothing else
// is visible. Built natively, the workspace is the current directory.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"runtime"
	"strings"
)

const (
	outDir  = "out"
	outFile = "out/todo.md"
	// maxFileSize bounds the files read; larger ones are skipped as data.
	maxFileSize = 4 << 20
	// maxLineLen bounds a quoted line in the report.
	maxLineLen = 160
)

const usage = `usage: report

Collect the TODO and FIXME lines of every file in the workspace into
out/todo.md (file:line and the line), and print a one-line summary.
`

var marker = regexp.MustCompile(`\b(TODO|FIXME)\b`)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// workspace is the folder scanned: the sandbox's mount, or natively the
// current directory.
func workspace() string {
	if runtime.GOOS == "wasip1" {
		return "/workspace"
	}
	return "."
}

// An item is one TODO or FIXME line.
type item struct {
	file string // slash path relative to the workspace
	line int
	kind string // "TODO" or "FIXME"
	text string // the line from the marker on
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if len(args) != 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	root := workspace()
	fsys := os.DirFS(root)
	items, files, err := scan(fsys, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "report: reading the workspace (%s): %v\n", root, hint(err, "--allow-read=workspace"))
		return 1
	}

	if err := os.MkdirAll(path.Join(root, outDir), 0o755); err != nil {
		fmt.Fprintf(stderr, "report: creating %s: %v\n", outDir, hint(err, "--allow-write=workspace/out"))
		return 1
	}
	if err := os.WriteFile(path.Join(root, outFile), render(items, files), 0o644); err != nil {
		fmt.Fprintf(stderr, "report: writing %s: %v\n", outFile, hint(err, "--allow-write=workspace/out"))
		return 1
	}

	todo, fixme := 0, 0
	for _, it := range items {
		if it.kind == "TODO" {
			todo++
		} else {
			fixme++
		}
	}
	fmt.Fprintf(stdout, "%s and %s in %s (of %s scanned); wrote %s\n",
		plural(todo, "TODO"), plural(fixme, "FIXME"), plural(countFiles(items), "file"), plural(files, "file"), outFile)
	return 0
}

// hint adds the grant to ask for when err is a permission error.
func hint(err error, flag string) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w (run with %s)", err, flag)
	}
	return err
}

// scan walks fsys in lexical order and returns the items found and the
// number of files read. Unreadable files are reported on stderr and
// skipped; only a failure to read the workspace itself is an error.
func scan(fsys fs.FS, stderr io.Writer) ([]item, int, error) {
	var items []item
	files := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			fmt.Fprintf(stderr, "report: skipping %s: %v\n", p, err)
			return nil
		}
		if d.IsDir() {
			if p != "." && (p == outDir || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks and devices are not followed
		}
		info, err := d.Info()
		if err != nil {
			fmt.Fprintf(stderr, "report: skipping %s: %v\n", p, err)
			return nil
		}
		if info.Size() > maxFileSize {
			return nil // data, not notes
		}
		found, ok, err := scanFile(fsys, p)
		if err != nil {
			fmt.Fprintf(stderr, "report: skipping %s: %v\n", p, err)
			return nil
		}
		if ok {
			files++
			items = append(items, found...)
		}
		return nil
	})
	return items, files, err
}

// scanFile returns the items of one file; ok is false for a binary file.
func scanFile(fsys fs.FS, name string) (items []item, ok bool, err error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, false, err
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return nil, false, nil // binary, as git decides
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		// The text from the marker on: "TODO: ask finance", not the
		// comment or list syntax before it.
		if m := marker.FindStringSubmatchIndex(line); m != nil {
			items = append(items, item{file: name, line: n, kind: line[m[2]:m[3]], text: strings.TrimSpace(line[m[0]:])})
		}
	}
	return items, true, sc.Err()
}

func render(items []item, files int) []byte {
	var b bytes.Buffer
	b.WriteString("# TODO report\n\n")
	if len(items) == 0 {
		fmt.Fprintf(&b, "No TODO or FIXME in %s.\n", plural(files, "file"))
		return b.Bytes()
	}
	fmt.Fprintf(&b, "%s in %s.\n", plural(len(items), "item"), plural(countFiles(items), "file"))
	last := ""
	for _, it := range items {
		if it.file != last {
			fmt.Fprintf(&b, "\n## %s\n\n", it.file)
			last = it.file
		}
		text := it.text
		if r := []rune(text); len(r) > maxLineLen {
			text = string(r[:maxLineLen]) + "…"
		}
		fmt.Fprintf(&b, "- `%s:%d` %s\n", it.file, it.line, strings.ReplaceAll(text, "`", "'"))
	}
	return b.Bytes()
}

func countFiles(items []item) int {
	n, last := 0, ""
	for _, it := range items {
		if it.file != last {
			n++
			last = it.file
		}
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
