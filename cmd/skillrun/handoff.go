package main

// The commands the resident serves (handoff.Verbs) are handed to it by
// the init of package handoff/early, before the rest of skillrun is
// initialised, so that a client pays for little more than its process
// start; any other start returns from it at once (resident.go is the
// resident's side).
import _ "github.com/skillrun/skillrun/internal/resident/handoff/early"
