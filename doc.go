// Package skillrun is the root of a Go runtime that runs Agent Skills from
// people you do not trust. It holds no code of its own; the packages are:
//
//   - [github.com/skillrun/skillrun/skills]: SKILL.md and skill.toml:
//     parse, validate, load (folder, zip, fs.FS), catalog, disclosure, search.
//   - [github.com/skillrun/skillrun/capabilities]: what a script may touch,
//     declared by the skill and granted by the operator; deny by default.
//   - cmd/skillrun: the command-line tool.
//
// The layering between them is enforced by deps_test.go; DESIGN.md and
// RATIONALE.md explain it.
package skillrun
