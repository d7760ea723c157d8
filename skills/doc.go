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
//
// # API
//
// Loading:
//
//   - [Load]: a skill folder, its SKILL.md or a .zip archive.
//   - [LoadDir], [LoadZip], [LoadZipReader], [LoadFS]: one kind of source
//     each: a folder, a zip file, a zip in an [io.ReaderAt], an [io/fs.FS].
//   - [LoadOptions]: strict or lenient loading, and the folder name the
//     skill's name must match.
//   - [Skill]: a loaded skill: frontmatter, body, manifest and location.
//     [Skill.Triggers] gives its extra discovery words.
//
// Validating:
//
//   - [Problem]: one thing wrong, with file, line, field, code and message.
//   - [Problems]: a list of them; [Problems.Errors] and [Problems.Warnings]
//     split it by [Severity].
//   - [Severity]: [Error] makes a skill invalid, [Warning] does not.
//   - [ValidateName]: the name rules alone, for a name not yet in a SKILL.md.
//
// Disclosure:
//
//   - [Skill.Activate]: level 2, an [Activation] with the SKILL.md body and
//     the file list.
//   - [Skill.Files]: the skill's files, at most [MaxListedFiles].
//   - [Skill.ReadResource]: level 3, one file, confined to the skill.
//
// Discovery and catalog:
//
//   - [Discover]: loads the skills under a list of roots ([Root]), keeping
//     one per name, into a [Discovery] with skills, problems and failures.
//   - [DefaultRoots]: the project's and user's skill folders, in order.
//   - [Origin]: which kind of root a skill came from ([OriginPath],
//     [OriginProject], [OriginUser]), highest precedence first.
//   - [FindSkills]: lists the skills under one path without loading them,
//     as a [Found].
//   - [Catalog]: level 1, a [CatalogEntry] per skill with its name,
//     description, location and estimated token cost.
//   - [Prompt], [WritePrompt]: the catalog as an <available_skills> block
//     for a system prompt.
//
// Search:
//
//   - [NewIndex]: builds an [Index] of skills for BM25F ranking.
//   - [Index.Search]: the skills matching a query, best first, as [Match]
//     values.
//   - [SearchOptions]: result limit ([DefaultSearchLimit] by default) and
//     regular-expression queries.
//
// Manifests:
//
//   - [manifestFile]: "skill.toml", the optional manifest beside SKILL.md.
//   - [ParseManifest]: parses it strictly into a [Manifest]: capabilities,
//     scripts and triggers. [Manifest.ScriptNames] lists the scripts.
//   - [Script]: one runnable entry; its [ScriptKind] is [KindWASI],
//     [KindExtism] or [KindSource], and [Build] says how to compile it.
//   - [Script.RequiredAgentIdentity]: the one agent that may call it.
//
// Identity:
//
//   - [Skill.Ref]: the [capabilities.SkillRef] a policy grants by.
//   - [Skill.Place], [Skill.Digest]: the location and content digest a
//     policy pins.
//
// Errors and problem codes:
//
//   - [LoadError]: a skill that could not be loaded, with every problem.
//   - [ErrOutsideSkill]: a path that would leave the skill folder.
//   - [errUnsafeZip]: wrapped by every rejection of an unsafe archive.
//   - [ErrEmptyQuery]: [Index.Search] was given an empty query.
//   - Code constants such as [codeNameDirMismatch] and [codeYAMLSyntax]:
//     the stable strings of [Problem].Code, which `skillrun validate --json`
//     prints. Tools match on codes; messages are for people.
package skills
