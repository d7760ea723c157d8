// Package yamlmod loads skills, tools and agents written as YAML
// modules, the format of frameworks that make "skills and tools
// first-class modules", and serves them the way skillrun serves its own:
// a skill is disclosed like any Agent Skill, a tool's actions are tools
// whose scripts run in the sandbox, deny by default, and an agent is the
// scope of a session.
//
// Why a package of its own: such a folder is not an Agent Skill (no
// SKILL.md) nor a Markdown skill (package mdskill), but what it holds
// maps onto what skillrun already has. Rather than a second catalog or
// a second way to run scripts, yamlmod translates: a skill.yaml becomes
// a [skills.Skill] with a generated SKILL.md, and a tool's folder
// becomes a skill whose generated skill.toml names one script per
// action, run by [scripts.Runner.RunScript] like any other.
//
// # The format
//
// A folder DIR holds:
//
//	DIR/skills/<id>/skill.yaml
//	  skill: {id, version, category, triggers, input_schema, output_schema,
//	          methodology: [{step, description, tools, decision_factors}],
//	          best_practices, common_pitfalls}
//	DIR/skills/<id>/executor.py               (optional: execute(input, tools),
//	                                           served as the tool <id>__execute)
//	DIR/tools/<id>/tool.yaml
//	  tool: {id, version, category, constraints, requires,
//	         actions: [{name, description, returns,
//	                    parameters: [{name, type, required, default, description}]}]}
//	DIR/tools/<id>/<action>.{py,js,sh,wasm}   (or in DIR/tools/<id>/scripts/)
//	DIR/tools/<id>/wrapper.py                 (a class with invoke(action, params),
//	                                           for the actions without a script)
//	DIR/agents/<id>.yaml
//	  agent: {id, skills, tools}
//
// A step's or agent's tool is named by the tool's id (all its actions),
// <tool>.<action> or <tool>__<action>. A parameter's type is a JSON
// Schema type (string, number, integer, boolean, object, array).
//
// # Loading
//
// [Load] is strict, as `skillrun validate` is for Agent Skills: unknown
// keys and wrong types are errors, and every problem is a
// [skills.Problem] with its file and line. A file with an error is left
// out; the rest load. The files are strangers': each is at most
// [MaxFile] bytes, folders and lists are bounded, YAML nests at most 32
// levels, anchors and aliases are refused (they make expansion bombs),
// and every read goes through an [os.Root] on DIR.
//
// # Serving
//
//   - Skills: [Set.AgentSkills] (or [Skill.AgentSkill]) for
//     host.DisclosureTools and the catalog; [Skill.ToolNames] for the
//     tools to offer once the skill is activated; [Skill.CheckOutput]
//     checks a result against the skill's output_schema.
//   - Tools: [Tool.HostTools] for a registry; [Tool.ScriptSkill] to
//     resolve a grant with scripts.Resolve; [Tool.Requires] for what the
//     tool says it needs, checked.
//   - Agents: [Set.Agent] gives an agent's skills and tool names.
//
// An action's script gets its input as JSON on stdin and the action's
// name as its argument, and answers on stdout:
//
//	#!/bin/sh
//	# tools/text-tools/count_words.sh
//	n=$(jq -r .text | wc -w)
//	echo "{\"words\": $((n))}"
package yamlmod
