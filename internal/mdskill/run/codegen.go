package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// Bounds of a cgskill's generated code and its run: the code is the
// model's, as untrusted as a stranger's script.
const (
	maxCode      = 256 << 10
	codeManifest = `version = 1
[capabilities]
read    = ["skill"]
memory  = "128MiB"
timeout = "10s"
output  = "1MiB"
`
	codeSkill = "---\nname: cgskill-code\ndescription: Code a cgskill's model wrote, run in the sandbox with nothing granted but its own file.\n---\n"
	// codeWrapper runs the model's function body with the input (stdin,
	// JSON) as input, and prints what it returns.
	codeWrapper = `const __input = JSON.parse(require("fs").readFileSync("/dev/stdin") || "null");
const __result = (function (input) {
%s
})(__input);
if (__result !== undefined) console.log(typeof __result === "string" ? __result : JSON.stringify(__result));
`
)

// codegen is the cgskill and cskill kinds: the model writes JavaScript
// for the input; the code runs in the JS sandbox with the input on its
// stdin and nothing granted but reading its own file, under fixed
// memory, time and output limits; the result is what it returns or
// prints.
func (r *Runner) codegen(ctx context.Context, s *mdskill.Skill, in map[string]any) (*host.ToolResult, error) {
	if r.Scripts == nil {
		return host.ErrorResult(fmt.Sprintf("skill_%s: no sandbox to run generated code in", s.Name)), nil
	}
	system := s.SystemPrompt
	if s.Kind == mdskill.KindCode {
		system = s.CodePrompt()
	}
	resp, err := r.completeWith(ctx, s, system, []agent.Message{{Role: agent.RoleUser, Text: formatInput(in)}})
	if err != nil {
		return nil, err
	}
	code := extractCode(resp.Message.Text)
	if strings.TrimSpace(code) == "" {
		return host.ErrorResult(fmt.Sprintf("skill_%s: the model wrote no code", s.Name)), nil
	}
	if len(code) > maxCode {
		return host.ErrorResult(fmt.Sprintf("skill_%s: the generated code is over %d bytes", s.Name, maxCode)), nil
	}
	dir, err := os.MkdirTemp("", "skillrun-cgskill-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	skillDir := filepath.Join(dir, "cgskill-code")
	if err := os.MkdirAll(filepath.Join(skillDir, "scripts"), 0o755); err != nil {
		return nil, err
	}
	for name, body := range map[string]string{"SKILL.md": codeSkill, "skill.toml": codeManifest,
		"scripts/main.js": fmt.Sprintf(codeWrapper, code)} {
		if err := os.WriteFile(filepath.Join(skillDir, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	sk, err := skills.LoadDir(skillDir, nil)
	if err != nil {
		return nil, err
	}
	grant := capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootSkill}}}
	var stdout, stderr bytes.Buffer
	res, err := r.Scripts.RunScript(ctx, sk, "scripts/main.js", &scripts.ScriptRun{
		Stdin: strings.NewReader(formatInput(in)), Stdout: &stdout, Stderr: &stderr, Granted: grant,
		Depth: host.CallerFrom(ctx).Depth,
	})
	// The code is at most maxCode bytes, but its JSON may be six times
	// that: it is cut to maxCode bytes of JSON in the result.
	usage := map[string]any{"usage": resp.Usage, "code": fitText(code, maxCode)}
	switch {
	case errors.Is(err, sandbox.ErrTimeout):
		return host.ErrorResult(fmt.Sprintf("skill_%s: the generated code did not finish in time", s.Name)), nil
	case errors.Is(err, sandbox.ErrMemoryLimit):
		return host.ErrorResult(fmt.Sprintf("skill_%s: the generated code used more memory than allowed", s.Name)), nil
	case errors.Is(err, sandbox.ErrOutputLimit):
		return host.ErrorResult(fmt.Sprintf("skill_%s: the generated code wrote more output than allowed", s.Name)), nil
	case err != nil:
		return host.ErrorResult(fmt.Sprintf("skill_%s: running the generated code: %v", s.Name, err)), nil
	case res.ExitCode != 0:
		return host.ErrorResult(fmt.Sprintf("skill_%s: the generated code failed (exit status %d): %s", s.Name,
			res.ExitCode, agent.Truncate(strings.TrimSpace(stderr.String()), 2048))), nil
	}
	return textResult(strings.TrimRight(stdout.String(), "\n"), "result", usage), nil
}

// extractCode takes the code of a reply: its first fenced block (of any
// language, JavaScript expected), or the whole reply when it has none.
func extractCode(reply string) string {
	lines := strings.Split(reply, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
			continue
		}
		fence := t[:3]
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(lines[j]), fence) {
				return strings.Join(lines[i+1:j], "\n")
			}
		}
		return strings.Join(lines[i+1:], "\n")
	}
	return reply
}
