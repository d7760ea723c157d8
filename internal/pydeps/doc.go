// Package pydeps finds what a skill's Python scripts need and fetches it
// as pure-Python wheels, verified and cached, unpacked into one
// site-packages tree that runs mount read-only on the interpreter's path.
//
// skillrun runs CPython 3.11 compiled to WebAssembly (WASI), where only
// pure-Python code can load: the resolver therefore takes only *-none-any
// wheels, never builds source distributions, and says so by name when a
// package has nothing else to offer. The few compiled packages built
// into that interpreter (Options.Provided: Pillow, lxml) are never
// fetched: a requirement naming one is met by the built-in copy.
package pydeps
