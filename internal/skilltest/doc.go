// Package skilltest runs a skill's own test cases in the sandbox, the way
// its users will run the skill: `skillrun test` is its command.
//
// Cases live in the skill's tests/ folder, one case a file, written by
// hand and read at a glance:
//
//	tests/count.toml     a TOML case
//	tests/report.txtar   a case with files: a txtar archive whose comment
//	                     section is the same TOML and whose files are
//	                     stdin, stdout, stderr (exact expected output),
//	                     workspace/PATH (the workspace it starts with) and
//	                     expect/PATH (a file that must exist afterwards,
//	                     with exactly that content)
//
// The keys of a case:
//
//	script    = "scripts/count.py"   # a script file of the skill, or a skill.toml script name
//	command   = "wc -l notes.txt"    # or: a command line for the sandboxed shell
//	args      = ["notes.txt"]        # the script's arguments
//	stdin     = "text"               # its standard input
//	input     = '{"k": 1}'           # the JSON value its input host function reads
//	workspace = "tests/fixtures/a"   # a folder of the skill the workspace starts as (copied)
//	timeout   = "10s"                # at most the skill's own
//
//	[files]                          # more files the workspace starts with
//	"notes.txt" = "one two\n"
//
//	[grant]                          # exactly what the run is granted, in skill.toml's words
//	read  = ["workspace"]            # (all = true: everything the skill declares, as -A);
//	write = ["workspace/out"]        # nothing named, nothing granted. A case cannot widen
//	                                 # what the skill declares: naming more is an error.
//	[expect]
//	exit            = 0              # the default
//	stdout          = "2 3 14 notes.txt\n"
//	stdout_contains = ["notes.txt"]
//	stdout_matches  = '^\d+ '        # a Go regular expression
//	stderr          = ""             # (and stderr_contains, stderr_matches)
//	deleted         = ["old.txt"]    # files the run must delete
//	ignore          = ["cache/*"]    # changes the check ignores (path.Match patterns; a folder covers its contents)
//	[expect.files]                   # files created or changed, with their contents
//	"out/report.md" = "# Report\n"
//
// Besides what [expect] names, nothing in the workspace may change: a file
// created, changed or deleted that no expectation names fails the case.
//
// Model-level cases check that a model following the SKILL.md gets there:
//
//	[trigger]                        # search, as a model's skill_search does
//	should     = ["count the words in my notes"]   # must find this skill in the top N
//	should_not = ["translate this into French"]    # must not
//	top        = 3                   # N, 3 by default
//
//	plan = "tests/session.plan.toml" # a scripted session (agent.Plan): every
//	                                 # turn's expect must hold and it must end well
//
// Every case runs in a fresh copy of its workspace, in parallel with the
// others; a case that cannot load (an unknown key, a missing script or
// fixture) fails alone, with the file and line, and the others still run.
package skilltest
