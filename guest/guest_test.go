//go:build !wasip1

package guest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNotInSandbox: built natively, every function says so.
func TestNotInSandbox(t *testing.T) {
	_, err1 := Input()
	err2 := Output([]byte("x"))
	_, err3 := CallTool("t", nil)
	_, err4 := SearchSkills("q", 0)
	_, _, err5 := ActivateSkill("s")
	_, err6 := ReadResource("p")
	_, err7 := RunSkill("s", "x", nil)
	_, err8 := CallMCP("s", "t", nil)
	_, err9 := Fetch(&FetchRequest{URL: "http://x/"})
	Log("info", "nothing happens")
	for i, err := range []error{err1, err2, err3, err4, err5, err6, err7, err8, err9} {
		assert.ErrorIs(t, err, ErrNotInSandbox, "call %d", i+1)
	}
	assert.Zero(t, ABIVersion(), "ABIVersion outside the sandbox")
	_, err := CallTool("t", func() {})
	assert.Error(t, err, "an unencodable input gave no error")
}
