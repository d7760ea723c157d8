// Package bench runs benchmark trials: it compares plugin sets (skills,
// MCP servers, allowed tools) across tasks, with the agent's tools, the
// skills' scripts and the tasks' verifiers all in skillrun's sandbox, so
// a trial needs no container and a run can be repeated, resumed and
// sharded.
//
// The formats are the ones evaluators already write: ADE-bench's
// plugin-sets file ([ParsePluginSets]), Harbor's task folders
// ([LoadTask]: instruction.md, task.toml, tests/test.sh and an optional
// solution/solve.sh, with the environment given as a workspace folder
// instead of a Dockerfile), and ADE-bench's result fields and layout
// ([TrialResult], [Results]).
package bench
