package main

import "github.com/skillrun/skillrun/internal/build"

// init runs before main (and before the tests' TestMain): when `skillrun
// build` re-executes this binary to confine a toolchain, build.SandboxMain
// applies the confinement and executes the toolchain in its place; in
// every other start it returns at once.
func init() { build.SandboxMain() }
