// Package helper runs the native tier's confining helper as early as a
// Go program can: imported for its side effect (import _
// "github.com/skillrun/skillrun/native/helper"), its init calls
// [native.Main] before the packages that do not depend on it are
// initialised, so a confined run's start does not pay for the whole
// program's initialisation (in skillrun, 17 ms of it, mostly JSON
// Schema and SDK tables).
package helper

import "github.com/skillrun/skillrun/native"

func init() { native.Main() }
