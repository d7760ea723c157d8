package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/audit"
	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
)

// tableTool serves the example contacts tskill over a fresh workspace
// with the given grant, through a registry (so inputs are checked
// against the tool's schema as every caller's are).
func tableTool(t *testing.T, dir string, grant capabilities.Set) *host.Registry {
	t.Helper()
	ws, err := host.NewWorkspace(dir, grant)
	require.NoError(t, err)
	r := &Runner{Workspace: ws, Timeout: 5 * time.Second}
	reg := host.NewRegistry()
	require.NoError(t, reg.Add(r.Tool(load(t, "contacts"))))
	return reg
}

var readWrite = capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}},
	Write: []capabilities.Path{{Root: capabilities.RootWorkspace}}}

func op(t *testing.T, reg *host.Registry, input string) *host.ToolResult {
	t.Helper()
	res, err := reg.Call(context.Background(), "skill_contacts", json.RawMessage(input))
	require.NoError(t, err)
	return res
}

func rowsOf(t *testing.T, res *host.ToolResult) []map[string]any {
	t.Helper()
	require.False(t, res.IsError, res.Content)
	var out struct{ Rows []map[string]any }
	require.NoError(t, json.Unmarshal([]byte(res.Content), &out))
	return out.Rows
}

// TestTableOperations: insert, query, update and delete on the declared
// fields, each kept in the workspace's database file, which a second
// runner (a later process) reads back.
func TestTableOperations(t *testing.T) {
	dir := t.TempDir()
	reg := tableTool(t, dir, readWrite)

	res := op(t, reg, `{"operation": "insert", "values": {"name": "Ada", "email": "ada@example.com", "on_call": true, "tags": ["db"]}}`)
	require.False(t, res.IsError, res.Content)
	assert.JSONEq(t, `{"id": 1}`, res.Content)
	res = op(t, reg, `{"operation": "insert", "values": {"name": "Brian", "email": "brian@example.com", "on_call": false}}`)
	assert.JSONEq(t, `{"id": 2}`, res.Content)

	data, err := os.ReadFile(filepath.Join(dir, "data", "contacts.db"))
	require.NoError(t, err)
	assert.Equal(t, "SQLite format 3\x00", string(data[:16]), "the file is a SQLite database any tool reads")

	rows := rowsOf(t, op(t, reg, `{"operation": "query", "where": {"on_call": true}}`))
	require.Len(t, rows, 1)
	assert.Equal(t, "Ada", rows[0]["name"])
	assert.Equal(t, true, rows[0]["on_call"])
	assert.Equal(t, []any{"db"}, rows[0]["tags"])

	res = op(t, reg, `{"operation": "update", "values": {"on_call": true}, "where": {"name": "Brian"}}`)
	assert.JSONEq(t, `{"changed": 1}`, res.Content)
	rows = rowsOf(t, op(t, reg, `{"operation": "query", "where": {"on_call": true}, "order_by": "name", "descending": true}`))
	require.Len(t, rows, 2)
	assert.Equal(t, "Brian", rows[0]["name"])

	res = op(t, reg, `{"operation": "delete", "where": {"id": 1}}`)
	assert.JSONEq(t, `{"changed": 1}`, res.Content)

	again := tableTool(t, dir, readWrite)
	rows = rowsOf(t, op(t, again, `{"operation": "query"}`))
	require.Len(t, rows, 1)
	assert.Equal(t, "brian@example.com", rows[0]["email"])
	assert.Equal(t, float64(2), rows[0]["id"])
}

// TestTableQueryBeforeAnyRow: a query of a database never written is no
// rows, and writes no file.
func TestTableQueryBeforeAnyRow(t *testing.T) {
	dir := t.TempDir()
	reg := tableTool(t, dir, readWrite)
	assert.Empty(t, rowsOf(t, op(t, reg, `{"operation": "query"}`)))
	assert.NoFileExists(t, filepath.Join(dir, "data", "contacts.db"))
	res := op(t, reg, `{"operation": "create"}`)
	require.False(t, res.IsError, res.Content)
	assert.FileExists(t, filepath.Join(dir, "data", "contacts.db"))
}

// TestTableInjection: values are bound, never spliced: SQL in a value is
// stored as text and matches nothing it should not, and the table stays.
func TestTableInjection(t *testing.T) {
	reg := tableTool(t, t.TempDir(), readWrite)
	evil := `x'); DROP TABLE contacts; --`
	in, _ := json.Marshal(map[string]any{"operation": "insert", "values": map[string]any{"name": evil, "email": "e@x"}})
	require.False(t, op(t, reg, string(in)).IsError)
	op(t, reg, `{"operation": "insert", "values": {"name": "Ada", "email": "ada@example.com"}}`)

	assert.Empty(t, rowsOf(t, op(t, reg, `{"operation": "query", "where": {"name": "' OR '1'='1"}}`)))
	rows := rowsOf(t, op(t, reg, `{"operation": "query", "where": {"email": "e@x"}}`))
	require.Len(t, rows, 1)
	assert.Equal(t, evil, rows[0]["name"])
	assert.Len(t, rowsOf(t, op(t, reg, `{"operation": "query"}`)), 2, "the table is still there")
}

// TestTableBadInput: what the schema refuses before anything runs, and
// what the operation refuses after: each names the problem.
func TestTableBadInput(t *testing.T) {
	reg := tableTool(t, t.TempDir(), readWrite)
	for _, c := range []struct{ input, want string }{
		{`{"operation": "drop"}`, "operation"},
		{`{"operation": "query", "where": {"password": "x"}}`, "password"},
		{`{"operation": "query", "order_by": "name; DROP TABLE contacts"}`, "order_by"},
		{`{"operation": "insert", "values": {"name": 3, "email": "e"}}`, "name"},
		{`{"operation": "insert", "values": {"name": "Ada"}}`, "email"},
		{`{"operation": "insert"}`, "values"},
		{`{"operation": "delete"}`, "all: true"},
		{`{"operation": "update", "values": {"on_call": false}}`, "all: true"},
		{`{"operation": "query", "limit": 100000}`, "limit"},
	} {
		res := op(t, reg, c.input)
		assert.True(t, res.IsError, c.input)
		assert.Contains(t, res.Content, c.want, c.input)
	}
	// Straight to the tool, past the schema, the operation checks again.
	ws, err := host.NewWorkspace(t.TempDir(), readWrite)
	require.NoError(t, err)
	tool := (&Runner{Workspace: ws}).Tool(load(t, "contacts"))
	res := call(t, tool, `{"operation": "query", "where": {"1=1 OR name": "x"}}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "is not a field of contacts")

	require.False(t, op(t, reg, `{"operation": "insert", "values": {"name": "A", "email": "a"}}`).IsError)
	res = op(t, reg, `{"operation": "delete", "all": true}`)
	assert.JSONEq(t, `{"changed": 1}`, res.Content)
}

// TestTableGrants: the database is read and written under the workspace
// grant: read only lets a query through and refuses an insert, nothing
// refuses both, and each denial is audited.
func TestTableGrants(t *testing.T) {
	dir := t.TempDir()
	require.False(t, op(t, tableTool(t, dir, readWrite), `{"operation": "insert", "values": {"name": "A", "email": "a"}}`).IsError)

	readOnly := capabilities.Set{Read: []capabilities.Path{{Root: capabilities.RootWorkspace}}}
	reg := tableTool(t, dir, readOnly)
	assert.Len(t, rowsOf(t, op(t, reg, `{"operation": "query"}`)), 1)
	rec := &recorder{}
	ctx := audit.WithAuditor(context.Background(), rec)
	res, err := reg.Call(ctx, "skill_contacts", json.RawMessage(`{"operation": "insert", "values": {"name": "B", "email": "b"}}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "write workspace/data/contacts.db denied")
	events := rec.all()
	var denials []audit.Event
	for _, e := range events {
		if e.Decision == audit.Deny {
			denials = append(denials, e)
		}
	}
	require.Len(t, denials, 1, "the denial is audited: %v", events)
	assert.Equal(t, audit.Event{Kind: "write", Value: "workspace/data/contacts.db", Decision: audit.Deny,
		Reason: "write workspace/data/contacts.db denied: not granted (add --allow-write=workspace/data/contacts.db)"}, denials[0])

	res = op(t, tableTool(t, dir, capabilities.Set{}), `{"operation": "query"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "read workspace/data/contacts.db denied")
}

// TestTableSymlinkEscape: a database path that is a symbolic link out of
// the workspace is refused, and the file it points at is untouched.
func TestTableSymlinkEscape(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "victim.db")
	require.NoError(t, os.WriteFile(outside, []byte("precious"), 0o644))
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "data"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "data", "contacts.db")))
	reg := tableTool(t, dir, readWrite)
	for _, in := range []string{`{"operation": "query"}`, `{"operation": "insert", "values": {"name": "A", "email": "a"}}`} {
		res := op(t, reg, in)
		assert.True(t, res.IsError, in)
	}
	got, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(got))
}

// TestTableHostileDatabase: a workspace file that is not a database, and
// one whose trigger never ends, each fail their own call, in bounded time.
func TestTableHostileDatabase(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "contacts.db"), []byte("not SQLite at all, just text"), 0o644))
	res := op(t, tableTool(t, dir, readWrite), `{"operation": "query"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "not a database")

	// A database whose insert trigger counts forever.
	path := filepath.Join(dir, "data", "contacts.db")
	require.NoError(t, os.Remove(path))
	db, err := sqlite3.Open(path)
	require.NoError(t, err)
	require.NoError(t, db.Exec(`CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, on_call INTEGER, tags TEXT);
		CREATE TRIGGER forever AFTER INSERT ON contacts BEGIN
		  SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c);
		END;`))
	require.NoError(t, db.Close())
	ws, err := host.NewWorkspace(dir, readWrite)
	require.NoError(t, err)
	tool := (&Runner{Workspace: ws, Timeout: time.Second}).Tool(load(t, "contacts"))
	start := time.Now()
	res, err = tool.Call(context.Background(), json.RawMessage(`{"operation": "insert", "values": {"name": "A", "email": "a"}}`))
	assert.Less(t, time.Since(start), 20*time.Second)
	require.Error(t, err, "%+v", res)
	assert.Contains(t, err.Error(), "stopped at its time limit")
}

// TestTableConcurrentCalls: parallel inserts into one database lose none:
// the calls on one file take turns.
func TestTableConcurrentCalls(t *testing.T) {
	reg := tableTool(t, t.TempDir(), readWrite)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			res := op(t, reg, fmt.Sprintf(`{"operation": "insert", "values": {"name": "n%d", "email": "e%d"}}`, i, i))
			assert.False(t, res.IsError, res.Content)
		})
	}
	wg.Wait()
	assert.Len(t, rowsOf(t, op(t, reg, `{"operation": "query", "limit": 50}`)), 16)
}

// TestTableSchema: the tool's input names only the declared fields.
func TestTableSchema(t *testing.T) {
	s := load(t, "contacts")
	var schema struct {
		Properties map[string]struct {
			Properties map[string]any `json:"properties"`
			Enum       []string       `json:"enum"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(s.InputSchema(), &schema))
	assert.Equal(t, mdskill.TableOps, schema.Properties["operation"].Enum)
	assert.ElementsMatch(t, []string{"name", "email", "on_call", "tags"}, keys(schema.Properties["values"].Properties))
	assert.ElementsMatch(t, []string{"id", "name", "email", "on_call", "tags"}, keys(schema.Properties["where"].Properties))
	assert.Equal(t, "data/contacts.db", s.Database)
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
