package guest

import _ "embed"

// CHeader is include/skillrun.h, the C declarations of the host
// functions (docs/contracts/abi.md). `skillrun build` puts it on the include path of C
// scripts, so they #include "skillrun.h" without a copy of their own.
//
//go:embed include/skillrun.h
var CHeader []byte
