package bench

import (
	"path"
	"slices"

	"github.com/skillrun/skillrun/host"
)

// claudeTools maps Claude Code's tool names, which ADE-bench's
// allowed_tools use, to skillrun's tools that do the same. "Skill" is
// skill activation: the disclosure tools, skill_run and every skill
// script (matched by source, see ToolFilter).
var claudeTools = map[string][]string{
	"Bash":      {"shell"},
	"Read":      {"workspace_read"},
	"Write":     {"workspace_write"},
	"Edit":      {"workspace_edit"},
	"MultiEdit": {"workspace_edit"},
	"Glob":      {"workspace_glob", "workspace_list"},
	"LS":        {"workspace_list"},
	"Grep":      {"workspace_search"},
	"Skill":     {"skill_search", "skill_activate", "skill_read", "skill_run"},
}

// claudeOnly are Claude Code tools with no skillrun counterpart: allowing
// them allows nothing, and ToolFilter says so rather than failing a file
// written for Claude Code.
var claudeOnly = []string{"WebFetch", "WebSearch", "Task", "Agent", "TodoWrite", "NotebookEdit", "NotebookRead",
	"BashOutput", "KillShell", "KillBash", "ExitPlanMode", "SlashCommand"}

// ToolFilter turns a set's allowed_tools into the predicate a session's
// Allow takes. Each entry is a Claude Code tool name (mapped through
// claudeTools), or a glob over skillrun's tool names ("mcp__dbt__*",
// "workspace_*"; path.Match syntax, where * also matches "_"). An empty
// list allows everything, as Claude Code does without --allowedTools.
// The notes say which entries allow nothing.
func ToolFilter(allowed []string) (allow func(host.ToolDef) bool, notes []string) {
	if len(allowed) == 0 {
		return nil, nil
	}
	names := map[string]bool{}
	skills := false
	var globs []string
	for _, a := range allowed {
		if mapped, ok := claudeTools[a]; ok {
			for _, m := range mapped {
				names[m] = true
			}
			skills = skills || a == "Skill"
			continue
		}
		if slices.Contains(claudeOnly, a) {
			notes = append(notes, "allowed tool "+a+" is Claude Code's own; skillrun has no counterpart, so it allows nothing")
			continue
		}
		if _, err := path.Match(a, ""); err != nil {
			notes = append(notes, "allowed tool "+a+" is not a valid pattern; it allows nothing")
			continue
		}
		globs = append(globs, a)
	}
	return func(d host.ToolDef) bool {
		if names[d.Name] || skills && (d.Source == host.SourceSkill || d.Source == host.SourceMarkdown) {
			return true
		}
		for _, g := range globs {
			if ok, _ := path.Match(g, d.Name); ok {
				return true
			}
		}
		return false
	}, notes
}
