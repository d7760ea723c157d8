package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/internal/safefile"
	"github.com/skillrun/skillrun/internal/tomlx"
)

// A Task is one benchmark task in Harbor's folder format:
//
//	instruction.md      what the agent is asked
//	task.toml           [metadata], [agent] timeout_sec, [verifier] timeout_sec, [skillrun]
//	tests/test.sh       the verifier, run in the sandboxed shell after the agent
//	solution/solve.sh   optional; what the oracle agent runs
//
// Docker gave a Harbor task its environment; here the [skillrun] table
// of task.toml says what stands for it: the workspace fixture folder,
// copied afresh for every trial, and the mount point the task expects
// it at (Harbor's tasks work in /app).
type Task struct {
	// ID is the folder's name.
	ID  string
	Dir string
	// Instruction is instruction.md.
	Instruction string
	// AgentTimeout and VerifierTimeout bound the two phases of a trial.
	AgentTimeout, VerifierTimeout time.Duration
	// Workspace is the fixture folder ("" for an empty workspace).
	Workspace string
	// MountAt is where the agent's shell and the verifier see the
	// workspace besides /workspace.
	MountAt string
	// Plan is the scripted provider's plan for this task ("" for none).
	Plan string
	// Solution is solution/solve.sh ("" for none).
	Solution string
	// Metadata is task.toml's [metadata], as written.
	Metadata map[string]any
}

// Defaults of task.toml, as Harbor's (its verifier's 600 s) where it has
// one.
const (
	defaultAgentTimeout    = 10 * time.Minute
	defaultVerifierTimeout = 10 * time.Minute
	defaultMountAt         = "/app"
	maxInstruction         = 1 << 20
	maxTaskTOML            = 1 << 20
)

// taskFile is task.toml: Harbor's keys (those that mean nothing without
// Docker are read and ignored, so a Harbor task loads unchanged) and
// skillrun's own table.
type taskFile struct {
	Version       string         `toml:"version"`
	SchemaVersion string         `toml:"schema_version"`
	Source        string         `toml:"source"`
	Task          map[string]any `toml:"task"`
	Metadata      map[string]any `toml:"metadata"`
	Agent         struct {
		TimeoutSec   *float64 `toml:"timeout_sec"`
		User         any      `toml:"user"`
		NetworkMode  string   `toml:"network_mode"`
		AllowedHosts []string `toml:"allowed_hosts"`
	} `toml:"agent"`
	Verifier struct {
		TimeoutSec   *float64          `toml:"timeout_sec"`
		Env          map[string]string `toml:"env"`
		User         any               `toml:"user"`
		NetworkMode  string            `toml:"network_mode"`
		AllowedHosts []string          `toml:"allowed_hosts"`
	} `toml:"verifier"`
	Solution struct {
		Env map[string]string `toml:"env"`
	} `toml:"solution"`
	Environment map[string]any `toml:"environment"`
	Skillrun    struct {
		Workspace *string `toml:"workspace"`
		Mount     *string `toml:"mount"`
		Plan      *string `toml:"plan"`
	} `toml:"skillrun"`
}

// LoadTask reads the task folder dir. Problems name the file and line.
func LoadTask(dir string) (*Task, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	t := &Task{ID: filepath.Base(abs), Dir: abs, AgentTimeout: defaultAgentTimeout,
		VerifierTimeout: defaultVerifierTimeout, MountAt: defaultMountAt}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("task %s: not a folder", dir)
	}
	instr, err := readBounded(filepath.Join(abs, "instruction.md"), maxInstruction)
	if err != nil {
		return nil, fmt.Errorf("task %s: instruction.md: %w", t.ID, safefile.Cause(err))
	}
	if strings.TrimSpace(string(instr)) == "" {
		return nil, fmt.Errorf("task %s: instruction.md is empty", t.ID)
	}
	t.Instruction = string(instr)
	if fi, err := os.Stat(filepath.Join(abs, "tests", "test.sh")); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("task %s: no tests/test.sh (the verifier)", t.ID)
	}
	tomlFile := filepath.Join(abs, "task.toml")
	data, err := readBounded(tomlFile, maxTaskTOML)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = nil // every key has a default
	case err != nil:
		return nil, fmt.Errorf("task %s: task.toml: %w", t.ID, safefile.Cause(err))
	}
	f, err := parseTaskTOML(data, tomlFile)
	if err != nil {
		return nil, err
	}
	t.Metadata = f.Metadata
	if f.Agent.TimeoutSec != nil {
		t.AgentTimeout = time.Duration(*f.Agent.TimeoutSec * float64(time.Second))
	}
	if f.Verifier.TimeoutSec != nil {
		t.VerifierTimeout = time.Duration(*f.Verifier.TimeoutSec * float64(time.Second))
	}
	if t.AgentTimeout <= 0 || t.VerifierTimeout <= 0 {
		return nil, fmt.Errorf("%s: timeout_sec must be positive", tomlFile)
	}
	ws := "environment/workspace"
	if f.Skillrun.Workspace != nil {
		ws = *f.Skillrun.Workspace
	}
	if ws != "" {
		if err := inside(ws); err != nil {
			return nil, fmt.Errorf("%s: [skillrun] workspace %q: %w", tomlFile, ws, err)
		}
		fi, err := os.Stat(filepath.Join(abs, filepath.FromSlash(ws)))
		switch {
		case err == nil && fi.IsDir():
			t.Workspace = filepath.Join(abs, filepath.FromSlash(ws))
		case f.Skillrun.Workspace != nil:
			return nil, fmt.Errorf("%s: [skillrun] workspace %q is not a folder of the task", tomlFile, ws)
		}
	}
	if f.Skillrun.Mount != nil {
		m := *f.Skillrun.Mount
		if !path.IsAbs(m) || path.Clean(m) != m || m == "/" {
			return nil, fmt.Errorf("%s: [skillrun] mount %q: an absolute folder path such as /app", tomlFile, m)
		}
		t.MountAt = m
	}
	plan := "plan.toml"
	if f.Skillrun.Plan != nil {
		plan = *f.Skillrun.Plan
		if err := inside(plan); err != nil {
			return nil, fmt.Errorf("%s: [skillrun] plan %q: %w", tomlFile, plan, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(abs, filepath.FromSlash(plan))); err == nil && fi.Mode().IsRegular() {
		t.Plan = filepath.Join(abs, filepath.FromSlash(plan))
	} else if f.Skillrun.Plan != nil {
		return nil, fmt.Errorf("%s: [skillrun] plan %q is not a file of the task", tomlFile, plan)
	}
	if fi, err := os.Stat(filepath.Join(abs, "solution", "solve.sh")); err == nil && fi.Mode().IsRegular() {
		t.Solution = filepath.Join(abs, "solution", "solve.sh")
	}
	return t, nil
}

// knownTaskKeys are the keys task.toml may hold beside the free-form
// tables ([metadata], [task], [environment]), by table.
var knownTaskKeys = map[string][]string{
	"":         {"version", "schema_version", "source", "task", "metadata", "agent", "verifier", "solution", "environment", "skillrun"},
	"agent":    {"timeout_sec", "user", "network_mode", "allowed_hosts"},
	"verifier": {"timeout_sec", "env", "user", "network_mode", "allowed_hosts"},
	"solution": {"env"},
	"skillrun": {"workspace", "mount", "plan"},
}

func parseTaskTOML(data []byte, file string) (*taskFile, error) {
	var f taskFile
	lines, tooDeep := tomlx.LocateKeys(data)
	if tooDeep > 0 {
		return nil, fmt.Errorf("%s:%d: nests tables too deeply", file, tooDeep)
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			return nil, fmt.Errorf("%s:%d: invalid TOML: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var errs []error
	for _, k := range md.Undecoded() {
		table := ""
		if len(k) > 1 {
			table = k[0]
		}
		if _, strict := knownTaskKeys[table]; !strict || len(k) > 2 {
			continue // free-form tables, and values inside known keys (env)
		}
		errs = append(errs, fmt.Errorf("%s:%d: unknown key %q%s", file, lines.Line(k), k.String(),
			tomlx.DidYouMean(k[len(k)-1], knownTaskKeys[table])))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &f, nil
}

// inside checks that a task-relative path stays in the task folder.
func inside(p string) error {
	if p == "" || path.IsAbs(p) || strings.Contains(p, "\\") || !filepath.IsLocal(filepath.FromSlash(p)) {
		return errors.New("a path inside the task folder")
	}
	return nil
}
