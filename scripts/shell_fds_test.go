package scripts

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
)

// Process substitution and descriptors above 2 are skillrun's additions
// to mvdan.cc/sh (internal/interp/shellpatch); TestBashConformance
// compares what bash makes deterministic with bash. These cover the
// rest: >(...), whose reader bash runs at the same time as the writer
// (so bash's output order is not fixed) and the shell runs when the
// writing command ends; what the files leave behind; and the bounds.

func TestShellProcSubstOut(t *testing.T) {
	res, out, errOut, _, err := runShell(t, `echo hello > >(tr a-z A-Z); echo after
seq 3 | tee >(wc -l > n.txt) > /dev/null; cat n.txt
f() { cat > "$1"; }; echo via-function | f >(sed 's/^/f: /')
exec > >(sed 's/^/log: /'); echo one; echo two`, nil, shellGrant)
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "HELLO\nafter\n3\nf: via-function\nlog: one\nlog: two\n", out)
}

// TestShellProcSubstNoLeftovers: the files behind <(...) and >(...) are
// gone once their statement ends, also when the command fails.
func TestShellProcSubstNoLeftovers(t *testing.T) {
	res, out, errOut, _, err := runShell(t, `cat <(echo in) > /dev/null; echo x > >(cat > /dev/null); false < <(echo y); exec 3< <(echo kept); ls -A /tmp | wc -l; cat <&3; exec 3<&-`, nil, shellGrant)
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "0\nkept\n", out)
}

// TestShellAttackProcSubstFlood: a producer that never ends fills its
// file up to the bound of the run's /tmp (256 MiB) and stops there, so
// the reader still ends.
func TestShellAttackProcSubstFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: writes 256 MiB into /tmp; the full suite runs it")
	}
	grant := shellGrant
	grant.Timeout = capabilities.Duration(120 * time.Second)
	res, out, errOut, _, err := runShell(t, `cat <(yes) | head -1`, nil, grant)
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "y\n", out)
}

// TestShellAttackFDFlood: descriptors are bounded like bash's (1024),
// and a number past the bound is a bad descriptor, not an allocation.
func TestShellAttackFDFlood(t *testing.T) {
	res, out, errOut, _, err := runShell(t, `for i in $(seq 2000); do exec {fd}>/dev/null || { echo "stopped after $((i-1))"; break; }; done 2>/dev/null
echo hi 99999>&1 2>/dev/null || echo refused
echo hi >&99999 2>/dev/null || echo refused`, nil, shellGrant)
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode, errOut)
	require.Equal(t, "stopped after 1014\nrefused\nrefused\n", out)
}
