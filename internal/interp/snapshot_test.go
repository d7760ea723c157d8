package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPythonSnapshotUsable: only `python3 /script.py ARGS` runs whose
// environment leaves the initialisation as it was start from the
// snapshot.
func TestPythonSnapshotUsable(t *testing.T) {
	own := []string{"PYTHONHOME=/usr/local", "PYTHONDONTWRITEBYTECODE=1", "PYTHONUTF8=1", "PYTHONNOUSERSITE=1",
		"_PYTHON_SYSCONFIGDATA_NAME=_sysconfigdata_skillrun"}
	for _, c := range []struct {
		args, env []string
		want      bool
	}{
		{[]string{"/skill/scripts/x.py", "-v", "a"}, own, true},
		{[]string{"/skill/scripts/x.py"}, append(own, "PYTHONPATH=/skill/lib", "HOME=/home", "PWD=/workspace"), true},
		{[]string{"/skill/scripts/x.py"}, append(own, "PYTHONWARNINGS=error"), false},
		{[]string{"/skill/scripts/x.py"}, append(own, "PYTHONHASHSEED=0"), false},
		{[]string{"/skill/scripts/x.py"}, append(own, "PYTHONUNBUFFERED=1"), false},
		{[]string{"-c", "print(1)"}, own, false},
		{[]string{"-m", "json.tool"}, own, false},
		{[]string{"x.py"}, own, false},
		{nil, own, false},
	} {
		assert.Equal(t, c.want, pythonSnapshot.Usable(c.args, c.env), "%q %q", c.args, c.env)
	}
	assert.Len(t, pythonSnapshot.Fingerprint(), 32)
	assert.Equal(t, pythonSnapshot.Fingerprint(), pythonSnapshot.Fingerprint())
}
