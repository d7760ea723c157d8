// Package guest is the Go SDK for skill scripts: a program built with
// GOOS=wasip1 GOARCH=wasm calls skillrun's host functions through it —
// read its input, write its output, log, call host tools, search, activate
// and read skills, run other skills, call MCP tools and fetch over HTTP —
// each allowed only as far as the run's grant allows.
//
//	in, err := guest.Input()
//	res, err := guest.CallTool("workspace_read", map[string]string{"path": "in.csv"})
//	if e, ok := errors.AsType[*guest.Error](err); ok && e.Code == guest.CodeDenied { ... }
//	err = guest.Output([]byte("done\n"))
//
// Built for any other GOOS, every function returns [ErrNotInSandbox], so
// code using it compiles and tests natively.
//
// docs/contracts/abi.md in the skillrun repository specifies the ABI; C and
// other languages use include/skillrun.h. The functions are safe for
// concurrent use (calls are serialized).
//
// # API
//
// Input and output:
//   - [Input] returns the run's input, [Output] writes its result and [Log]
//     writes a line to the host's log.
//   - [ABIVersion]: the host's ABI version (0 outside skillrun).
//   - [MaxPayload]: the largest request or response, in bytes.
//   - [CHeader]: include/skillrun.h, the same host functions for C.
//
// Tools:
//   - [CallTool] calls a host tool by name and returns its [ToolResult].
//
// Skills:
//   - [SearchSkills] finds skills ([SkillInfo]), [ActivateSkill] returns a
//     skill's instructions and files, and [ReadResource] reads a file of
//     the script's own skill.
//   - [RunSkill] runs a script of a skill, given the skills grant.
//
// MCP:
//   - [CallMCP] calls a tool of an MCP server the host is connected to.
//
// HTTP:
//   - [Fetch] sends a [FetchRequest] through the host and returns a
//     [FetchResponse].
//
// Errors:
//   - [Error]: a failed host call, with a Code and a Message; [CodeDenied],
//     [CodeInvalid], [CodeNotFound], [CodeTooLarge], [CodeUnavailable] and
//     [CodeInternal] are its codes.
//   - [ErrNotInSandbox]: what every function returns when the program is
//     not a wasip1 module run by skillrun.
package guest
