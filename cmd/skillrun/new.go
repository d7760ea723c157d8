package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	"github.com/skillrun/skillrun/internal/scaffold"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
)

func newNewCmd() *cobra.Command {
	var lang, parent string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "new NAME [--lang " + strings.Join(scaffold.Langs(), "|") + "] [--dir PARENT]",
		Short: "Create a skill with a script and a test, ready to build and test",
		Long: `New creates the folder PARENT/NAME (PARENT defaults to the current
directory) holding a new skill: a SKILL.md, a script in the language --lang
names (default ` + scaffold.DefaultLang + `) that counts the lines, words and bytes of
files like wc, and a passing test case, tests/count.txtar, for skillrun test.
Python, JavaScript and shell scripts run as they are (scripts/count.py);
Go, C and Rust scripts have their source in src/ and a skill.toml, and are
built with skillrun build. Nothing in the skill depends on this repository:
edit it into the skill you want.

NAME must be a valid skill name: lowercase ASCII letters, digits and
hyphens, 1 to 64 characters, no hyphen at either end and no two in a row.
New never overwrites: if PARENT/NAME exists it writes nothing. The files are
written into a temporary folder beside it and renamed into place at the end,
so a failure leaves nothing behind.

Exit status: 0 created, 1 PARENT/NAME already exists, 2 on a usage or I/O
error (a bad NAME or --lang).`,
		Example: `  skillrun new count-words
  skillrun new count-words --lang go --dir ~/.agents/skills
  skillrun new count-words --lang rust --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNew(cmd, args[0], lang, parent, asJSON)
		},
	}
	cmd.Flags().StringVar(&lang, "lang", scaffold.DefaultLang, "the script's language: "+strings.Join(scaffold.Langs(), ", "))
	cmd.Flags().StringVar(&parent, "dir", ".", "the folder to create the skill in")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was created as JSON on stdout")
	return cmd
}

// newResult is what --json prints: the new skill's folder, its script's
// language and its files (slash-separated, relative to dir).
type newResult struct {
	Dir   string   `json:"dir"`
	Lang  string   `json:"lang"`
	Files []string `json:"files"`
}

func runNew(cmd *cobra.Command, name, lang, parent string, asJSON bool) error {
	if err := checkNewName(name); err != nil {
		return err
	}
	l, ok := scaffold.LookupLang(lang)
	if !ok {
		return usageErr("unknown --lang %s: use one of %s", termsafe.Quote(lang, 40), strings.Join(scaffold.Langs(), ", "))
	}
	files, err := scaffold.Files(name, l.Name)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	dir, err := scaffold.Create(parent, name, files)
	if errors.Is(err, fs.ErrExist) {
		return &exitError{code: exitInvalid, err: fmt.Errorf("%s: choose another NAME, or a PARENT with --dir", termsafe.String(err.Error()))}
	} else if err != nil {
		return &exitError{code: exitUsage, err: errors.New(termsafe.String(err.Error()))}
	}

	res := newResult{Dir: dir, Lang: l.Name, Files: make([]string, len(files))}
	for i, f := range files {
		res.Files[i] = f.Path
	}
	stdout := cmd.OutOrStdout()
	if asJSON {
		return writeJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "created %s (%s):\n", termsafe.String(dir), l.Name)
	for _, f := range files {
		fmt.Fprintf(stdout, "  %s\n", termsafe.String(filepath.Join(dir, filepath.FromSlash(f.Path))))
	}
	fmt.Fprintln(stdout, "next:")
	for _, c := range nextCommands(dir, l) {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	return nil
}

// checkNewName checks a new skill's name by the specification's rules
// (skills.ValidateName), and that it is ASCII: the name also becomes a
// folder name and, for Go, a module path, which allows no other letters.
func checkNewName(name string) error {
	const allowed = "a skill name is 1 to 64 lowercase ASCII letters, digits and hyphens, with no hyphen at either end and no two in a row (e.g. count-words)"
	if ps, ok := errors.AsType[skills.Problems](skills.ValidateName(name)); ok {
		var b strings.Builder
		for _, p := range ps {
			b.WriteString("\n  " + termsafe.String(p.Message))
		}
		return usageErr("NAME %s is not a valid skill name:%s\n%s", termsafe.Quote(name, 80), b.String(), allowed)
	}
	for _, r := range name {
		if r >= 0x80 {
			return usageErr("NAME %s has a letter outside ASCII, which skillrun new does not take: %s", termsafe.Quote(name, 80), allowed)
		}
	}
	return nil
}

// nextCommands are the commands to try the new skill in dir with.
func nextCommands(dir string, l scaffold.Lang) []string {
	q, err := syntax.Quote(dir, syntax.LangPOSIX)
	if err != nil {
		q = dir
	}
	q = termsafe.String(q)
	var cmds []string
	if l.Build {
		cmds = append(cmds, "skillrun build "+q)
	}
	return append(cmds,
		"skillrun test "+q,
		"skillrun run "+q+":"+l.Script+" --workspace . --allow-read -- FILE...")
}
