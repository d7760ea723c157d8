// Package native runs a program of the host (python3, node, bash, and
// what they start) confined, for the scripts WebAssembly cannot host: the
// native tier, which an operator turns on for a skill they trust, never a
// skill itself.
//
// What confines it ([Run]), all without cgo:
//
//   - new user, PID, network, IPC and UTS namespaces: the program sees
//     and signals no process of the host, and has no network but, when
//     [Spec].Proxy is set, a relay to that proxy (host.NetProxy, which
//     enforces the net grant) on 127.0.0.1:[ProxyPort]; when it exits,
//     every process it left behind dies with its PID namespace;
//   - Landlock (internal/landlock): the file system beneath the folders it
//     is given (the skill read-only, the workspace as granted, a private
//     temporary folder, [SystemPaths] read-only), nothing else: not the
//     user's home, not other skills, not /etc/shadow;
//   - no new privileges, resource limits (address space, CPU seconds, open
//     files, file size, processes: a pids cgroup where skillrun may make
//     one), a wall-time bound and an output cap.
//
// Where it cannot confine (not Linux, Landlock older than ABI 4, user
// namespaces off) [Check] and [Run] fail with [ErrUnconfined], naming
// what is missing. What the tier does not promise (the kernel's own
// attack surface, timing channels, a shared CPU) is in RATIONALE.md.
package native
