package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/skills"
)

// A script's PEP 723 requires-python that skillrun's Python does not
// meet is a warning, and the script runs: `python3 script.py` on an
// older Python ignores the block too, and most scripts that ask for a
// newer Python run on 3.11. --strict-python makes it an error, for an
// operator who wants the author's word kept.

// strictPythonFlag is the flag of run and deps that refuses such a script.
const strictPythonFlag = "strict-python"

const strictPythonUsage = "refuse a Python script whose PEP 723 requires-python excludes the sandbox's Python (default: warn and run it)"

// maxScriptRead bounds what checkScriptPython reads of a script.
const maxScriptRead = 1 << 20

// checkScriptPython warns on stderr, or with strict fails (exit 2), when
// the script scriptName of s is Python whose requires-python skillrun's
// Python does not meet. Anything it cannot read is left to the run.
func checkScriptPython(s *skills.Skill, scriptName string, strict bool, stderr io.Writer) error {
	src, file := pythonSource(s, scriptName)
	if src == nil {
		return nil
	}
	// A malformed block is a comment to Python (deps reports it): only a
	// block that reads and excludes the sandbox's Python is said.
	m, _ := pydeps.ScriptPython(file, src)
	if m == nil {
		return nil
	}
	msg := termsafe.String(s.Name + ": " + m.String())
	if strict {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s (--%s)", msg, strictPythonFlag)}
	}
	fmt.Fprintf(stderr, "skillrun: warning: %s; running it anyway (--%s refuses)\n", msg, strictPythonFlag)
	return nil
}

// pythonSource returns the source of a Python source script of s and its
// path in the skill, or nil for anything else (a module, another
// language, a zipped skill, a file that cannot be read).
func pythonSource(s *skills.Skill, scriptName string) ([]byte, string) {
	var sc *skills.Script
	if s.Manifest != nil {
		sc = s.Manifest.Scripts[scriptName]
	}
	if sc == nil && skills.IsFileScriptName(scriptName) {
		sc, _ = s.FileScript(scriptName)
	}
	if sc == nil || sc.Kind != skills.KindSource || sc.Language != skills.LangPython && !strings.HasSuffix(sc.Source, ".py") {
		return nil, ""
	}
	root, err := os.OpenRoot(filepath.Dir(s.Location))
	if err != nil {
		return nil, ""
	}
	defer root.Close()
	f, err := root.Open(sc.Source)
	if err != nil {
		return nil, ""
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxScriptRead+1))
	if err != nil || len(src) > maxScriptRead {
		return nil, ""
	}
	return src, sc.Source
}

// pythonWarnings reports deps' requires-python mismatches: warnings, or
// with strict an error (exit 1, deps' failure) that names them all.
func pythonWarnings(skill string, mismatches []pydeps.PythonMismatch, strict bool, stderr io.Writer) error {
	var msgs []string
	for _, m := range mismatches {
		msgs = append(msgs, termsafe.String(m.String()))
	}
	if len(msgs) == 0 {
		return nil
	}
	if strict {
		return &exitError{code: 1, err: errors.New(termsafe.String(skill) + ": " + strings.Join(msgs, "; ") + " (--" + strictPythonFlag + ")")}
	}
	for _, m := range msgs {
		fmt.Fprintf(stderr, "skillrun: warning: %s: %s; its scripts run anyway (--%s refuses)\n", termsafe.String(skill), m, strictPythonFlag)
	}
	return nil
}
