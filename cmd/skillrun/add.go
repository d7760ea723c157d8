package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillrun/skillrun/internal/skillpkg"
	"github.com/skillrun/skillrun/internal/termsafe"
)

// pkgFlags are the flags every lockfile verb takes: where skills are
// installed and which lock pins them.
type pkgFlags struct {
	dir, lock string
	user      bool
}

func (f *pkgFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "dir", "", "install into this skills folder instead of ./.agents/skills (the lock goes beside it: DIR/../"+skillpkg.LockFile+")")
	cmd.Flags().BoolVar(&f.user, "user", false, "install into ~/.agents/skills, locked in ~/.agents/"+skillpkg.LockFile)
	cmd.Flags().StringVar(&f.lock, "lock", "", "use this lockfile")
}

// options resolves the flags: the project's ./.agents/skills with
// ./skillrun-lock.json at the project's root (where it is committed);
// --user the user's ~/.agents/skills with the lock in ~/.agents; --dir
// DIR with the lock in DIR's parent, so that a lock always sits next to
// the folder it pins and a project's lock is not mistaken for it.
func (f *pkgFlags) options(cmd *cobra.Command, force bool) (*skillpkg.Options, error) {
	if f.user && f.dir != "" {
		return nil, usageErr("--user and --dir name different folders: give one")
	}
	o := &skillpkg.Options{Out: cmd.OutOrStdout(), Force: force}
	switch {
	case f.user:
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, err
		}
		o.SkillsDir = filepath.Join(home, ".agents", "skills")
		o.LockFile = filepath.Join(home, ".agents", skillpkg.LockFile)
	case f.dir != "":
		abs, err := filepath.Abs(f.dir)
		if err != nil {
			return nil, err
		}
		o.SkillsDir = abs
		o.LockFile = filepath.Join(filepath.Dir(abs), skillpkg.LockFile)
	default:
		o.SkillsDir = filepath.Join(".agents", "skills")
		o.LockFile = skillpkg.LockFile
	}
	if f.lock != "" {
		o.LockFile = f.lock
	}
	return o, nil
}

func (f *pkgFlags) manager(cmd *cobra.Command, force bool) (*skillpkg.Manager, error) {
	o, err := f.options(cmd, force)
	if err != nil {
		return nil, err
	}
	return skillpkg.New(o)
}

// failed is a verb's failure (exit 1), as opposed to a usage error.
func failed(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*exitError](err); ok {
		return err
	}
	return &exitError{code: exitInvalid, err: safeError{err}}
}

// safeError escapes an error's text for the terminal: it names files,
// refs and skills from repositories skillrun does not trust.
type safeError struct{ err error }

func (e safeError) Error() string { return termsafe.Text(e.err.Error()) }
func (e safeError) Unwrap() error { return e.err }

const lockHelp = `The lock, skillrun-lock.json, pins each skill by its source, the commit
it came from and the digest of its files (the digest a policy pins with
digest = "..."). Commit it with the project. The skills go into
./.agents/skills/NAME (--user: ~/.agents/skills; --dir DIR), one of the
folders skillrun and other agents look in.`

func newAddCmd() *cobra.Command {
	var pf pkgFlags
	var names []string
	var force bool
	cmd := &cobra.Command{
		Use:   "add SOURCE[@REF] [--skill NAME...]",
		Short: "Install skills from a repository and pin them in the lockfile",
		Long: `Add fetches SOURCE, finds its skills, checks each one, copies it into the
skills folder and records it in the lock. SOURCE is owner/repo (GitHub), a
git URL (https://, ssh://, file://, git@host:path) or a local folder; @REF
picks a branch, tag or commit (default: the default branch). A local folder
in a git work tree is cloned, so only committed files are installed.

Skills are found as a root SKILL.md, the plugins of a Claude Code
marketplace (.claude-plugin/marketplace.json) or plugin, or folders with a
SKILL.md up to 5 levels down. --skill NAME (repeatable) picks some.

For each skill add prints what its skill.toml declares and, for scripts no
manifest describes, what they appear to need (network, subprocesses,
packages), with the file and line where it looked. Nothing is granted by
installing: grants come from flags or a policy.

Add never replaces a folder another source installed (or that no lock entry
names) unless --force is given. Everything is copied into a temporary folder
and renamed into place at the end: on any error nothing is installed and the
lock is unchanged. Without SOURCE, add does what install does.

` + lockHelp + `

Exit status: 0 installed, 1 on a failure (fetch, invalid skill, collision),
2 on a usage error.`,
		Example: `  skillrun add anthropics/skills --skill pdf
  skillrun add https://github.com/acme/skills.git@v1.2.0
  skillrun add ./vendor/my-skill --user`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := pf.manager(cmd, force)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				if len(names) > 0 {
					return usageErr("--skill needs a SOURCE")
				}
				return failed(m.Install(cmd.Context(), false))
			}
			src, err := skillpkg.ParseSource(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			return failed(m.Add(cmd.Context(), src, names))
		},
	}
	pf.add(cmd)
	cmd.Flags().StringArrayVar(&names, "skill", nil, "install only the skill NAME (repeatable)")
	cmd.Flags().BoolVar(&force, "force", false, "replace a skill folder that another source, or nothing in the lock, owns")
	return cmd
}

func newInstallCmd() *cobra.Command {
	var pf pkgFlags
	var frozen bool
	cmd := &cobra.Command{
		Use:   "install [--frozen]",
		Short: "Restore exactly the skills the lockfile pins",
		Long: `Install makes the skills folder hold exactly what the lock pins: a skill
whose folder already has the locked digest is left alone; any other is
fetched at its locked commit and must have the locked digest, or install
fails saying the source no longer has that content.

--frozen (for CI) changes nothing: it lists every locked skill that is
missing or whose files differ from the lock and exits 1 if there is one.
Folders in the skills folder that the lock does not name are not checked:
other tools and hand-written skills share that folder.

` + lockHelp + `

Exit status: 0 all skills as locked, 1 on a failure or (--frozen) a skill
missing or differing, 2 on a usage error.`,
		Example: `  skillrun install
  skillrun install --frozen`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := pf.manager(cmd, false)
			if err != nil {
				return err
			}
			return failed(m.Install(cmd.Context(), frozen))
		},
	}
	pf.add(cmd)
	cmd.Flags().BoolVar(&frozen, "frozen", false, "change nothing; fail if any skill is missing or differs from the lock")
	return cmd
}

func newUpdateCmd() *cobra.Command {
	var pf pkgFlags
	cmd := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Move locked skills to the newest commit of their ref",
		Long: `Update resolves each named skill's ref (all skills when none is named; the
default branch when the skill was added without @REF) to its newest commit.
If that is the locked commit the skill is up to date; otherwise it is
fetched, checked and installed, and the lock records the new commit and
digest. A skill from a plain folder is copied and digested again.

Update prints what changed in what the skill asks for (declared
capabilities, and what its scripts appear to need) and the skill's new
digest: a policy that pins the old digest stops granting the skill anything
of its own until the operator re-grants it with the new digest = "...".

` + lockHelp + `

Exit status: 0 updated or up to date, 1 on a failure, 2 on a usage error.`,
		Example: `  skillrun update
  skillrun update pdf`,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := pf.manager(cmd, false)
			if err != nil {
				return err
			}
			return failed(m.Update(cmd.Context(), args))
		},
	}
	pf.add(cmd)
	return cmd
}

func newVerifyCmd() *cobra.Command {
	var pf pkgFlags
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check installed skills against the lockfile",
		Long: `Verify digests each skill the lock pins as installed and prints one line per
skill: ok, differs (with both digests) or missing. Folders the lock does not
name are listed as not checked.

` + lockHelp + `

Exit status: 0 every locked skill is ok, 1 if any differs or is missing or
the lock cannot be read, 2 on a usage error.`,
		Example: `  skillrun verify`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := pf.manager(cmd, false)
			if err != nil {
				return err
			}
			statuses, extras, err := m.Verify()
			if err != nil {
				return failed(err)
			}
			out := cmd.OutOrStdout()
			bad := 0
			for _, s := range statuses {
				fmt.Fprintln(out, termsafe.String(s.String()))
				if s.State != "ok" {
					bad++
				}
			}
			for _, e := range extras {
				fmt.Fprintf(out, "%s: not in the lock (not checked)\n", termsafe.String(e))
			}
			if bad > 0 {
				return &exitError{code: exitInvalid, err: fmt.Errorf("%d of %d locked skills differ from the lock (run skillrun install to restore them)", bad, len(statuses))}
			}
			return nil
		},
	}
	pf.add(cmd)
	return cmd
}
