// Package builtin implements the text-processing core of bash's printf,
// echo and read builtins in pure Go, so that the sandboxed shell can match
// GNU bash 5.2 instead of the simplified builtins of mvdan.cc/sh.
//
// The functions here do no I/O of their own apart from Read, which consumes
// exactly one record from its reader. Builtins that must set variables
// (printf -v, read) return the values, and Assign and AssignArray turn them
// into shell source that the caller evals in the right scope.
//
// The behaviour, including its corner cases, follows bash 5.2 running in
// the C.UTF-8 locale: strings are byte strings, multibyte characters are
// UTF-8 as decoded by glibc.
package builtin
