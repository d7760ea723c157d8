//go:build !race

package wasmopt

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
