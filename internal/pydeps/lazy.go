package pydeps

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use. Package-level patterns compiled
// at init cost every skillrun command its start, and most commands never
// resolve a package.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
