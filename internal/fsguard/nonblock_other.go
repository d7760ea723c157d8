//go:build !unix

package fsguard

import "os"

// oNonblock is 0 where opening a named pipe does not wait for its other
// end as open(2) on a FIFO does; OpenFile still refuses special files.
const oNonblock = 0

func setBlocking(*os.File) error { return nil }
