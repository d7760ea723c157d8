package main

import (
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/termsafe"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

func newShellCmd() *cobra.Command {
	var f runFlags
	var command string
	cmd := &cobra.Command{
		Use:   "shell [flags] (-c COMMAND [NAME [ARGS...]] | FILE [ARGS...])",
		Short: "Run a bash-compatible script or command line in the sandbox",
		Long: `Shell runs bash-compatible scripts and command lines in skillrun's sandboxed
shell: the shell and every command it runs (grep, sed, awk, jq, find, tar,
...) execute inside one WebAssembly module; python3 and node start another
interpreter run in the same sandbox. Nothing runs as a host process and
nothing of the host is visible but the workspace at /workspace (the working
directory), a private /tmp, and each --skills skill read-only at
/skills/<name>.

The shell declares reading and writing the workspace: -A (or --allow-read
--allow-write) grants exactly that; without a grant it exits 126, as run
does. FILE is a script inside the workspace or inside a --skills skill.
Everything after FILE (or after -c COMMAND) goes to the script.

--native NAME (or native = true in the skill's own --policy table) trusts
one skill with the native tier: a command that runs one of its script
files (python3 /skills/NAME/scripts/x.py, bash scripts/x.sh from its
folder, a script with a #! line) starts it as a confined host process
(Linux with Landlock), with the real python3, node or bash and the host
programs they call; arguments naming /workspace, /tmp or the skill's
folder are turned into host paths. Everything else stays in WebAssembly.

Exit status: the shell's own, or 2 usage error, 124 timeout, 125 sandbox
error or a limit of the shell (a fork bomb, a runaway recursion), 126 not
granted, 127 a command the shell does not have.`,
		Example: `  skillrun shell --workspace . -A -c 'cat data.csv | grep x | wc -l'
  skillrun shell --workspace . -A --skills ./pdf -c 'python3 /skills/pdf/scripts/check.py in.pdf'
  skillrun shell --workspace . -A build.sh --fast
  skillrun shell --workspace . -A --skills ./stats --native stats -c 'python3 /skills/stats/scripts/fit.py data.csv'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShell(cmd, &f, cmd.Flags().Changed("command"), command, args)
		},
	}
	fl := cmd.Flags()
	// Everything after FILE belongs to the script.
	fl.SetInterspersed(false)
	fl.StringVarP(&command, "command", "c", "", "run `COMMAND` (a bash command line) instead of a script file")
	fl.StringVar(&f.workspace, "workspace", ".", "the host `DIR` mounted at /workspace (as granted); the working directory")
	fl.StringArrayVar(&f.skills, "skills", nil, "a skill `PATH` (or a folder of skills) mounted read-only at /skills/<name> (repeatable)")
	addGrantFlags(fl, &f)
	fl.StringArrayVar(&f.nativeSkills, "native", nil, "run the script files of the --skills skill `NAME` that a command starts as confined host processes (the native tier; Linux with Landlock; only for a skill you trust; repeatable)")
	return cmd
}

// shellStandIn names the shell where a grant decision names a skill.
var shellStandIn = &skills.Skill{Name: "shell", Location: "skillrun's sandboxed shell"}

func runShell(cmd *cobra.Command, f *runFlags, hasCommand bool, command string, args []string) error {
	stderr := cmd.ErrOrStderr()
	var shellArgs []string
	catalog, err := loadSkills(stderr, f.skills, nil)
	if err != nil {
		return err
	}
	switch {
	case hasCommand:
		shellArgs = append([]string{"-c", command}, args...)
	case len(args) == 0:
		return usageErr("shell: give -c COMMAND or a script FILE")
	default:
		guest, err := shellScriptPath(args[0], f.workspace, catalog)
		if err != nil {
			return usageErr("shell: %v", err)
		}
		shellArgs = append([]string{guest}, args[1:]...)
	}
	r, err := f.resolver()
	if err != nil {
		return err
	}
	// The shell is no skill: only the policy's [default] applies to it.
	grant, err := r.Resolve(capabilities.SkillRef{}, scripts.ShellDeclares())
	if err != nil {
		return usageErr("%v", err)
	}
	if !grant.Missing.IsZero() {
		grant, err = askOrDeny(cmd, f, shellStandIn, "", grant)
		if err != nil {
			return err
		}
	}
	pol, err := f.loadPolicy()
	if err != nil {
		return err
	}
	nativeFor, err := nativeTiers(f.nativeSkills, pol, catalog, "--skills", stderr)
	if err != nil {
		return err
	}
	auditor, auditDone, err := openAuditLog(f.audit, stderr)
	if err != nil {
		return usageErr("--audit: %v", err)
	}
	defer auditDone()
	if auditor == nil {
		auditor = audit.Discard
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	rt, release, err := scriptsRunner(ctx, stderr) // resident.go
	if err != nil {
		return &exitError{code: exitSandbox, err: err}
	}
	defer release()
	res, err := rt.RunShell(ctx, &scripts.ShellRun{
		ScriptRun: scripts.ScriptRun{
			Services: host.Services{Workspace: f.workspace, Auditor: auditor, Logger: guestLogger(stderr)},
			Args:     shellArgs,
			Stdin:    cmd.InOrStdin(),
			Stdout:   cmd.OutOrStdout(),
			Stderr:   stderr,
			Granted:  grant.Granted,
		},
		Skills: catalog,
		Native: nativeFor,
	})
	return runExit("shell", res, err)
}

// shellScriptPath is where the shell finds the script file given on the
// host: inside the workspace (/workspace/...) or a --skills skill
// (/skills/<name>/...). The sandbox shows nothing else.
func shellScriptPath(file, workspace string, catalog []*skills.Skill) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil {
		return "", err
	} else if fi.IsDir() {
		return "", fmt.Errorf("%s is a folder, not a script", termsafe.Quote(file, 0))
	}
	within := func(dir string) (string, bool) {
		d, err := filepath.Abs(dir)
		if err != nil {
			return "", false
		}
		rel, err := filepath.Rel(d, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(rel), true
	}
	for _, s := range catalog {
		if rel, ok := within(filepath.Dir(s.Location)); ok {
			return path.Join(scripts.SkillsGuestPath, s.Name, rel), nil
		}
	}
	if rel, ok := within(workspace); ok {
		return path.Join("/workspace", rel), nil
	}
	return "", fmt.Errorf("%s is neither in the workspace (%s) nor in a --skills skill: the sandbox sees nothing else", termsafe.Quote(file, 0), termsafe.Quote(workspace, 0))
}
