//go:build !race

package native

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
