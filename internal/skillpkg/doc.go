// Package skillpkg installs Agent Skills from git repositories (or local
// folders) into a skills folder and pins each one in a lockfile
// (skillrun-lock.json) by the commit it came from and the digest of its
// files, so that `skillrun install` restores exactly what was reviewed
// and `skillrun verify` notices anything that changed since.
//
// # Shape
//
// [ParseSource] reads what a user types (owner/repo, a git URL, a local
// path, each with an optional @ref). A [Manager] does the verbs: Add,
// Install, Update and Verify. Every change to the skills folder is a
// transaction: each skill is copied into a temporary folder beside its
// destination, checked, and renamed into place only when all of them
// are ready; the lock is written last, atomically. On any error nothing
// is left half-installed and the lock is unchanged.
//
// Fetching runs the git command (see fetch.go for how it is confined);
// copying is bounded in file size, total size and file count.
package skillpkg
