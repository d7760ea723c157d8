package host

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/skillrun/skillrun/internal/abi"
)

// TestDispatchExec: exec passes a well-formed request to the runner's
// ExecFunc one nesting level down, audited; a malformed one, one past the
// depth limit, or one in a run without interpreters fails with the right
// code.
func TestDispatchExec(t *testing.T) {
	rec := &recorder{}
	e := testEnv(&bytes.Buffer{}, rec)
	if got := dispatch(e, "exec", `{"args":["python3","x.py"]}`); !strings.HasPrefix(got, "error:unavailable: exec: this host provides no interpreters") {
		t.Errorf("without an ExecFunc: %s", got)
	}
	var gotReq *abi.ExecRequest
	var gotDepth int
	e.Exec = func(_ context.Context, req *abi.ExecRequest, depth int) (*abi.ExecResult, error) {
		gotReq, gotDepth = req, depth
		return &abi.ExecResult{ExitCode: 3, StdoutFile: "/tmp/.exec-1"}, nil
	}
	e.Depth = 1
	got := dispatch(e, "exec", `{"args":["python3","x.py","a b"],"dir":"/workspace","env":["K=V"],"inherit_stdout":true}`)
	if got != `{"exit_code":3,"stdout_file":"/tmp/.exec-1"}` {
		t.Errorf("exec: %s", got)
	}
	if gotReq == nil || strings.Join(gotReq.Args, "|") != "python3|x.py|a b" || gotReq.Dir != "/workspace" || !gotReq.InheritStdout || gotDepth != 2 {
		t.Errorf("the ExecFunc got %+v at depth %d", gotReq, gotDepth)
	}
	for _, c := range []struct{ req, want string }{
		{`{"args":[]}`, "error:invalid: exec: no program named"},
		{`{"args":[""]}`, "error:invalid: exec: no program named"},
		{`not json`, "error:invalid: "},
		{`{"args":["` + strings.Repeat("p", 300) + `"]}`, "error:invalid: exec: the program name is 300 bytes"},
	} {
		if got := dispatch(e, "exec", c.req); !strings.HasPrefix(got, c.want) {
			t.Errorf("exec %.40s: %s, want %s...", c.req, got, c.want)
		}
	}
	e.Depth = DefaultMaxDepth
	if got := dispatch(e, "exec", `{"args":["python3"]}`); !strings.Contains(got, "error:denied: me:main: exec python3 denied: runs started by scripts nest at most 4 deep") {
		t.Errorf("past the depth: %s", got)
	}
	var execEvents int
	for _, ev := range rec.events {
		if ev.Kind == "exec" {
			execEvents++
		}
	}
	if execEvents < 2 {
		t.Errorf("%d exec audit events, want the call and the denial: %+v", execEvents, rec.events)
	}
}
