package main

import "github.com/skillrun/skillrun/native"

// init runs before main (and before the tests' TestMain): when the native
// tier re-executes this binary to confine a script's host process,
// native.Main confines it and executes the program in its place; in
// every other start it returns at once.
func init() { native.Main() }
