package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/internal/safefile"
)

// skillrun's own files (the --audit log, session transcripts) are opened
// through internal/safefile, which never follows a symlink planted where
// the file is expected: a project folder is a stranger's, and a record
// appended through transcript.jsonl -> ~/.bashrc runs as shell code.

// openAuditLog opens the --audit file path for appending, or returns a nil
// auditor when path is empty. done closes the file and reports, once, the
// first error writing to it on stderr; a run or session goes on when its
// audit log cannot be written, and ends with its own outcome.
func openAuditLog(path string, stderr io.Writer) (a audit.Auditor, done func(), err error) {
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := safefile.OpenAppend(path)
	if err != nil {
		return nil, nil, err
	}
	j := audit.NewJSONLAuditor(f)
	return j, func() {
		werr := j.Err()
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			fmt.Fprintf(stderr, "skillrun: writing the audit log %s: %v\n", path, safefile.Cause(werr))
		}
	}, nil
}

// transcriptDir is where session transcripts go when --transcript is not
// given: $XDG_STATE_HOME/skillrun/transcripts, else
// ~/.local/state/skillrun/transcripts. Never the project folder, which may
// be a stranger's and is often under version control.
func transcriptDir() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) { // the XDG spec: a relative value is ignored
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state folder for the transcript (%w); name a file with --transcript FILE, or --transcript '' for none", err)
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "skillrun", "transcripts"), nil
}

// openTranscript opens the session transcript: path when the flag was
// given (none when it is empty), else a new file in [transcriptDir] named
// by time and process. It returns the file (nil for none) and the name the
// live view shows.
func openTranscript(path string, given bool) (*os.File, string, error) {
	if given && path == "" {
		return nil, "none", nil
	}
	if !given {
		dir, err := transcriptDir()
		if err != nil {
			return nil, "", err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, "", fmt.Errorf("creating the transcript folder: %w; name a file with --transcript FILE, or --transcript '' for none", err)
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", time.Now().UTC().Format("20060102T150405.000Z"), os.Getpid()))
	}
	f, err := safefile.OpenAppend(path)
	if err != nil {
		return nil, "", err
	}
	return f, path, nil
}
