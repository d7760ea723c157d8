package sandbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/abi"
	"github.com/skillrun/skillrun/internal/testkit"
)

// hostfuzz is the hostfuzz guest compiled once per fuzz process.
var hostfuzz struct {
	once sync.Once
	m    *CompiledModule
	err  error
}

// hostfuzzModule builds and compiles the guest (tens of seconds cold, so
// before fuzzing starts: the fuzzer takes an input running over 10 s for
// a hang).
func hostfuzzModule(t testing.TB) *CompiledModule {
	t.Helper()
	wasm := testkit.Wasm(t, "hostfuzz")
	hostfuzz.once.Do(func() {
		// A Runtime of its own (closed with the process): the shared ones
		// would compile the hostile guest too, for nothing.
		r, err := New(context.Background(), &Options{CacheDir: filepath.Join(testDir, "cache-hostfuzz")})
		if err != nil {
			hostfuzz.err = err
			return
		}
		hostfuzz.m, hostfuzz.err = r.Compile(context.Background(), wasm)
	})
	require.NoError(t, hostfuzz.err)
	return hostfuzz.m
}

// FuzzHostFunctions drives the real host functions from a real guest
// (testdata/guests/hostfuzz) with random calls: any function, with random
// payloads or random pointers and lengths (in bounds, out of bounds, past
// 4 GiB - 64 KiB), and random take buffers. It runs under the real
// runtime with a host.Env granting a little of everything. Properties:
// the run ends, within its timeout, with exit code 0 and no host error
// (the host never panics, hangs or traps on guest input); the guest saw
// every promise of ABI.md kept (no BAD line: lengths in range, take codes,
// well-formed envelopes with known error codes); and the output limit
// held for everything the guest wrote.
func FuzzHostFunctions(f *testing.F) {
	if testing.Short() {
		f.Skip("slow: compiles the hostfuzz guest and runs its seed corpus through every host function (4 s); the full suite runs it")
	}
	rec := func(fn, mode byte, ptr, size uint32, payload string) []byte {
		b := []byte{fn, mode}
		b = binary.LittleEndian.AppendUint32(b, ptr)
		b = binary.LittleEndian.AppendUint32(b, size)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(payload)))
		return append(b, payload...)
	}
	const take = 4 // takeAfter in the guest
	index := map[string]byte{}
	for i, name := range []string{abi.FuncInput, abi.FuncOutput, abi.FuncLog, abi.FuncToolCall, abi.FuncSkillsSearch,
		abi.FuncSkillActivate, abi.FuncSkillRead, abi.FuncSkillRun, abi.FuncMCPCall, abi.FuncHTTPFetch, abi.FuncTake, abi.FuncABIVersion} {
		index[name] = byte(i)
	}
	for _, seed := range [][][]byte{
		{rec(index[abi.FuncInput], take, 0, 0, ""), rec(index[abi.FuncOutput], take, 0, 0, "hello")},
		{rec(index[abi.FuncLog], take, 0, 0, `{"level":"error","msg":"x"}`), rec(index[abi.FuncLog], take, 0, 0, `{"level":"loud"}`)},
		{rec(index[abi.FuncToolCall], take, 0, 0, `{"name":"echo","input":{"a":1}}`), rec(index[abi.FuncToolCall], take, 0, 0, `{"name":"rm"}`)},
		{rec(index[abi.FuncSkillsSearch], take, 0, 0, `{"query":"pdf","limit":1000}`), rec(index[abi.FuncSkillActivate], take, 0, 0, `{"name":"pdf"}`)},
		{rec(index[abi.FuncSkillRead], take, 0, 0, `{"path":"../../etc/passwd"}`), rec(index[abi.FuncSkillRun], take, 0, 0, `{"skill":"self","script":"x"}`)},
		{rec(index[abi.FuncMCPCall], take, 0, 0, `{"server":"gh","tool":"t","args":[]}`), rec(index[abi.FuncHTTPFetch], take, 0, 0, `{"url":"http://evil/"}`)},
		{rec(index[abi.FuncLog], 1|take, 0xFFFFFFFF, 0xFFFFFFFF, ""), rec(index[abi.FuncToolCall], 2|take, 0x1234, 100, "")},
		{rec(index[abi.FuncLog], 3|take, 0, abi.MaxPayload+1, "{}"), rec(index[abi.FuncTake], 2, 5, 100, "")},
		{rec(index[abi.FuncTake], 0, 0, 0, ""), rec(index[abi.FuncInput], 0, 0, 0, ""), rec(index[abi.FuncTake], 0, 0, 1, ""), rec(index[abi.FuncABIVersion], 0, 0, 0, "")},
		{rec(index[abi.FuncOutput], take, 0, 0, strings.Repeat("x", 3000)), rec(index[abi.FuncOutput], take, 0, 0, strings.Repeat("y", 3000))},
		{rec(index[abi.FuncHTTPFetch], take, 0, 0, `{"method":"POST","url":"http://127.0.0.1:1/","headers":{"a":"b"},"body":"AAE="}`)},
		{rec(index[abi.FuncSkillsSearch], take, 0, 0, `{"query":"`+strings.Repeat("q", 60000)+`"}`)},
	} {
		f.Add(bytes.Join(seed, nil))
	}
	m := hostfuzzModule(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, stdout, stderr bytes.Buffer
		const outputLimit = 4 << 10
		env := fuzzHostEnv(&out, outputLimit)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := m.Run(ctx, &RunConfig{
			Name: "fuzz:hostfuzz", Stdin: bytes.NewReader(data), Stdout: &stdout, Stderr: &stderr,
			Host: env, Timeout: 30 * time.Second, Memory: 64 << 20, Output: 1 << 20,
		})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("run: %+v, %v\nstdout %q\nstderr %q", res, err, tail(stdout.String()), tail(stderr.String()))
		}
		if s := stdout.String(); strings.Contains(s, "BAD") || !strings.Contains(s, "done ") {
			t.Fatalf("the guest saw a broken promise:\n%s", tail(s))
		}
		if out.Len() > outputLimit {
			t.Fatalf("the output function wrote %d bytes under a %d-byte limit", out.Len(), outputLimit)
		}
	})
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// fuzzHostEnv is a host.Env granting one tool, one MCP server's tools,
// one skill and one host, with providers that answer from their input
// (fetching denies hosts named "evil", as a connect-time check would).
func fuzzHostEnv(out *bytes.Buffer, outputLimit int64) *host.Env {
	return &host.Env{
		Skill: "fuzz", Script: "hostfuzz",
		Granted:     capabilities.Set{Tools: []string{"echo"}, MCP: []string{"gh/*"}, Skills: []string{"pdf"}},
		Input:       []byte(`{"fuzz":true}`),
		Output:      out,
		OutputLimit: outputLimit,
		Services: host.Services{Auditor: audit.Discard, Tools: fakeTools{}, Skills: fakeSkills{}, MCP: fakeMCP{}, Fetch: func(_ context.Context, req json.RawMessage) (json.RawMessage, error) {
			var r abi.FetchRequest
			if err := json.Unmarshal(req, &r); err != nil {
				return nil, err
			}
			if strings.Contains(r.URL, "evil") {
				return nil, &capabilities.DeniedError{Kind: "net", Value: "evil.example:443"}
			}
			return json.Marshal(abi.FetchResponse{Status: 200, Body: []byte(fmt.Sprintf("fetched %.100s", r.URL))})
		}},

		MaxDepth: 4,
	}
}
