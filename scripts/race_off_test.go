//go:build !race

package scripts

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
