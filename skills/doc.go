// Package skills reads Agent Skills (agentskills.io): a folder, zip
// archive or fs.FS holding a SKILL.md (YAML frontmatter and Markdown
// instructions), optional scripts/, references/ and assets/, and
// skillrun's optional skill.toml. Everything here treats a skill as
// hostile input: every file, list and depth is bounded, and reads stay
// inside the skill folder.
//
// # Loading and validating
//
// [Load] takes a folder, a .zip or a SKILL.md path; [LoadDir], [LoadZip]
// and [LoadFS] take one source each. By default loading is lenient, as a
// client should be: a skill that merely breaks a rule of the
// specification loads, and its [Skill.Problems] say what is wrong. With
// [LoadOptions].Strict, as `skillrun validate` uses, any error-level
// [Problem] fails the load with a [*LoadError]. Problems carry a code, the
// file and line, and a message that says how to fix them.
//
// [ParseManifest] reads skill.toml, the declaration of a skill's scripts
// and of the capabilities they may be granted ([Manifest], [Script]).
//
// # Finding skills
//
// [FindSkills] lists the skills under a path; [Discover] walks the
// standard skill folders ([Root]: a project's .agents/skills and the
// user's) and reports skills that shadow each other by name.
//
// # Progressive disclosure
//
// Level 1 is the catalog: [Prompt] (or [WritePrompt]) renders the
// <available_skills> block of every skill's name, description and
// location. Level 2 is [Skill.Activate]: the SKILL.md body and the list of
// the skill's files. Level 3 is [Skill.ReadResource]: one file, confined
// to the skill folder. [Index] searches the catalog with BM25 ([Index.Search]).
//
// # Identity
//
// A name is whatever a skill's author wrote. [Skill.Ref] and
// [Skill.Digest] give what a policy binds a grant to instead: the skill's
// location and its content digest (see package capabilities).
package skills
