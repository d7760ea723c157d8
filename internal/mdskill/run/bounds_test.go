package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/agent"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
	"github.com/skillrun/skillrun/scripts"
)

// hostileDatabase writes the contacts database a stranger left in the
// workspace: rows whose cells are made huge as they are read (generated
// columns of a million control characters, each six bytes of JSON, and
// of a million-byte blob), a few kilobytes on disk.
func hostileDatabase(t *testing.T, dir string, rows int) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	db, err := sqlite3.Open(filepath.Join(dir, "data", "contacts.db"))
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	require.NoError(t, db.Exec(`CREATE TABLE contacts (id INTEGER PRIMARY KEY, on_call INTEGER,
		name TEXT GENERATED ALWAYS AS (printf('%.*c', 1000000, char(1))) VIRTUAL,
		email TEXT GENERATED ALWAYS AS (printf('%.*c', 1000000, '<')) VIRTUAL,
		tags BLOB GENERATED ALWAYS AS (zeroblob(1000000)) VIRTUAL)`))
	require.NoError(t, db.Exec(fmt.Sprintf(`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < %d)
		INSERT INTO contacts (on_call) SELECT 1 FROM n`, rows)))
	fi, err := os.Stat(filepath.Join(dir, "data", "contacts.db"))
	require.NoError(t, err)
	require.Less(t, fi.Size(), int64(64<<10), "the file itself is small")
}

// requireBounded checks a result against the bound every tool result
// keeps.
func requireBounded(t *testing.T, res *host.ToolResult) {
	t.Helper()
	require.LessOrEqual(t, len(res.Content), host.MaxResultContent, "content")
	require.LessOrEqual(t, len(res.Structured), host.MaxResultContent, "structured")
}

// allocated returns the bytes f allocates, a coarse check that a result
// is bounded while it is built, not only once built.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTableQueryBounded: a query of a hostile database in the workspace,
// through the registry as MCP and sessions call it, returns at most
// host.MaxResultContent bytes, its cells cut and marked, and stops
// reading rows once full, saying so and how to narrow the query; the
// host allocates little more than the result while building it.
func TestTableQueryBounded(t *testing.T) {
	dir := t.TempDir()
	hostileDatabase(t, dir, 2000)
	reg := tableTool(t, dir, readWrite)

	// The small query first: before the bound, it alone was 60 MB of
	// JSON; the large one is run only once the small one passes.
	for _, limit := range []int{5, mdskill.MaxQueryRows} {
		ok := t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var res *host.ToolResult
			alloc := allocated(func() { res = op(t, reg, fmt.Sprintf(`{"operation": "query", "limit": %d}`, limit)) })
			require.False(t, res.IsError, agent.Truncate(res.Content, 500))
			requireBounded(t, res)
			assert.Less(t, alloc, uint64(32<<20), "bytes allocated building the result")

			var out struct {
				Rows      []map[string]any `json:"rows"`
				Truncated bool             `json:"truncated"`
				Note      string           `json:"note"`
			}
			require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
			require.NotEmpty(t, out.Rows, "at least the first row fits")
			assert.True(t, out.Truncated)
			assert.Contains(t, out.Note, "cells over")
			if limit == mdskill.MaxQueryRows {
				assert.Less(t, len(out.Rows), 20, "the rows stop once the result is full")
				assert.Contains(t, out.Note, "narrow the query")
			} else {
				assert.Len(t, out.Rows, limit)
			}
			name := out.Rows[0]["name"].(string)
			assert.True(t, strings.HasPrefix(name, "\x01\x01"), "the cell's start is kept")
			assert.Regexp(t, `\n\[cut: \d+ more bytes\]$`, name)
			assert.True(t, strings.HasPrefix(out.Rows[0]["email"].(string), "<<"))
			assert.Contains(t, out.Rows[0]["tags"], "[cut: a blob of 1000000 bytes")
			assert.Equal(t, float64(1), out.Rows[0]["id"])
		})
		if !ok {
			break
		}
	}
}

// TestTableQueryManyRows: many rows of ordinary size stop at the bound
// too, and a query that fits is returned whole, with no note.
func TestTableQueryManyRows(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	db, err := sqlite3.Open(filepath.Join(dir, "data", "contacts.db"))
	require.NoError(t, err)
	require.NoError(t, db.Exec(`CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, on_call INTEGER, tags TEXT);
		WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 299)
		INSERT INTO contacts (name, email) SELECT 'n' || x || ' ' || printf('%.*c', 4000, 'x'), 'e' || x FROM n`))
	require.NoError(t, db.Close())
	long := strings.Repeat("x", 4000)
	reg := tableTool(t, dir, readWrite)
	res := op(t, reg, `{"operation": "query", "limit": 1000}`)
	require.False(t, res.IsError, res.Content)
	requireBounded(t, res)
	var out struct {
		Rows      []map[string]any `json:"rows"`
		Truncated bool             `json:"truncated"`
		Note      string           `json:"note"`
	}
	require.NoError(t, json.Unmarshal(res.Structured, &out))
	assert.True(t, out.Truncated)
	assert.Greater(t, len(out.Rows), 200)
	assert.Less(t, len(out.Rows), 300)
	assert.Contains(t, out.Note, fmt.Sprintf("only the first %d rows", len(out.Rows)))
	assert.NotContains(t, out.Note, "cells over", "no cell was cut")

	res = op(t, reg, `{"operation": "query", "limit": 100}`)
	require.False(t, res.IsError, res.Content)
	assert.NotContains(t, res.Content, "truncated")
	assert.Len(t, rowsOf(t, res), 100)
	assert.Equal(t, "n0 "+long, rowsOf(t, res)[0]["name"])
}

// TestReplyBounded: a model reply of any size (a provider other than
// the built-in ones reads without bound) is cut, content and structured
// value alike, in the skill and iskill kinds, and an iskill keeps only
// what it returned.
func TestReplyBounded(t *testing.T) {
	huge := strings.Repeat("\x01", 3<<20)
	p := &replies{texts: []string{huge, huge}}
	r := newRunner(t, p)
	for _, name := range []string{"summarize", "tutor"} {
		res := call(t, r.Tool(load(t, name)), `{"text": "x", "message": "hi"}`)
		require.False(t, res.IsError, agent.Truncate(res.Content, 200))
		requireBounded(t, res)
		assert.Regexp(t, `\n\[cut: \d+ more bytes\]$`, res.Content, name)
		var st struct{ Text string }
		require.NoError(t, json.Unmarshal(res.Structured, &st))
		assert.Equal(t, res.Content, st.Text, name)
	}
	for _, c := range r.conversations.m {
		assert.LessOrEqual(t, len(c.history[len(c.history)-1].Text), host.MaxResultContent)
	}
}

// bigTool returns the most a tool may: a full content and a full
// structured value.
type bigTool struct{}

func (bigTool) Definition() host.ToolDef {
	return host.ToolDef{Name: "big", Description: "returns the most a tool may", Source: host.SourceCore}
}

func (bigTool) Call(context.Context, json.RawMessage) (*host.ToolResult, error) {
	s := strings.Repeat("\x02", host.MaxResultContent/6-8)
	b, _ := json.Marshal(map[string]string{"s": s})
	return &host.ToolResult{Content: strings.Repeat("y", host.MaxResultContent), Structured: b}, nil
}

// TestStepsBounded: an mskill whose steps each return the most a tool
// may makes a result within the same bound, each step's part cut and
// marked, not the sum of its steps.
func TestStepsBounded(t *testing.T) {
	var src strings.Builder
	src.WriteString("# chain\n\nCalls a big tool.\n\n## Tools\n- big\n\n## Orchestration\n```yaml\nsteps:\n")
	for range 20 {
		src.WriteString("  - tool: big\n")
	}
	src.WriteString("```\n")
	s, problems := mdskill.Parse([]byte(src.String()), "chain.mskill.md")
	require.Empty(t, problems)
	r := newRunner(t, &replies{})
	reg := host.NewRegistry()
	require.NoError(t, reg.Add(bigTool{}))
	r.Tools = reg
	require.NoError(t, reg.Add(r.Tool(s)))

	res, err := reg.Call(context.Background(), "skill_chain", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.False(t, res.IsError, agent.Truncate(res.Content, 500))
	requireBounded(t, res)
	var st struct{ Steps []stepResult }
	require.NoError(t, json.Unmarshal(res.Structured, &st), "the result is whole JSON, not a cut one")
	require.Len(t, st.Steps, 20)
	for _, sr := range st.Steps {
		assert.Regexp(t, `\n\[cut: \d+ more bytes\]$`, sr.Content)
		assert.Nil(t, sr.Value)
		assert.Contains(t, sr.Cut, "share of the run's result")
	}
}

// TestJSONCut: the JSON of a cut text is within its limit whatever the
// text holds, and a text that fits is whole.
func TestJSONCut(t *testing.T) {
	for _, s := range []string{"plain", strings.Repeat("é\x00<\"\\\u2028", 5000), string([]byte{0xff, 0xfe, 'a'}) + strings.Repeat("z", 9000)} {
		for _, limit := range []int{64, 1000, 70000} {
			got := fitText(s, limit)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(b), limit, "limit %d", limit)
			if got != s {
				assert.Regexp(t, `\n\[cut: \d+ more bytes\]$`, got)
			}
		}
	}
	assert.Equal(t, "plain", fitText("plain", 7))
}

// TestCodeGenBounded: generated code that prints all the output its run
// may (each byte six of JSON), and code that is mostly '<' (six bytes of
// JSON each), make a result within the bound, the printed text cut and
// marked.
func TestCodeGenBounded(t *testing.T) {
	sr, err := scripts.New(context.Background(), &scripts.Options{Interpreters: scripts.BuildingInterpreters("", nil)})
	require.NoError(t, err)
	code := "```js\n/* " + strings.Repeat("<", 200_000) + " */\nreturn \"\\u0001\".repeat(1000000);\n```"
	r := &Runner{Provider: func(string) (agent.Provider, error) { return &replies{texts: []string{code}}, nil }, Scripts: sr}
	res := call(t, r.Tool(load(t, "csv-total")), `{"csv": "a\n1\n", "column": "a"}`)
	require.False(t, res.IsError, agent.Truncate(res.Content, 500))
	requireBounded(t, res)
	assert.True(t, strings.HasPrefix(res.Content, "\x01\x01"))
	assert.Regexp(t, `\n\[cut: \d+ more bytes\]$`, res.Content)
	var st struct{ Result, Code string }
	require.NoError(t, json.Unmarshal(res.Structured, &st))
	assert.Equal(t, res.Content, st.Result)
	assert.Contains(t, st.Code, "[cut: ")
}
