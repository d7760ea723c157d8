package main

// The native tier re-executes skillrun as the helper that confines a
// host process (package native): the helper package's init confines it
// and executes the program in its place, before the rest of skillrun is
// initialised; in any other start it returns at once.
import _ "github.com/skillrun/skillrun/native/helper"
