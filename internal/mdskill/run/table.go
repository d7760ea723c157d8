package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
)

// Bounds of a tskill's database: the file is the workspace's, which a
// stranger may have written.
const (
	// MaxDatabase is the largest database file a tskill opens or writes.
	MaxDatabase = 64 << 20
	// tableTimeout bounds one operation, the database's triggers included.
	tableTimeout = 30 * time.Second
	// maxHeap bounds what SQLite allocates for one operation.
	maxHeap = 256 << 20
	// maxValue bounds one string or blob SQLite makes.
	maxValue = 1 << 20
	// pageSize is the page size of a new database; MaxDatabase/pageSize
	// bounds the pages any database may grow to.
	pageSize = 4096
)

// tableLocks serialise the operations on one database file of one
// workspace, so that two calls never read the same old file and write
// their changes over each other's.
var tableLocks sync.Map // workspace pointer + path → *sync.Mutex

// table is the tskill kind: one operation on the skill's table, in its
// database file of the workspace.
//
// The file is read whole through the workspace's grants (host.Workspace:
// the read grant, confined to the grant's os.Root), opened in memory by
// SQLite compiled to WebAssembly and translated to Go (ncruces/go-sqlite3),
// changed, and written back whole and atomically through the write grant.
// SQLite never opens a host path, so a database file cannot lead it out of
// the workspace, and a hostile file can at worst fail its own operation.
func (r *Runner) table(ctx context.Context, s *mdskill.Skill, in map[string]any) (*host.ToolResult, error) {
	if r.Workspace == nil {
		return nil, errors.New("no workspace: a tskill keeps its table in a workspace file (give --workspace)")
	}
	op, _ := in["operation"].(string)
	q, err := buildQuery(s, op, in)
	if err != nil {
		return host.ErrorResult(fmt.Sprintf("%s: %v", s.ToolName(), err)), nil
	}
	ctx, cancel := context.WithTimeout(ctx, tableTimeout)
	defer cancel()
	mu, _ := tableLocks.LoadOrStore(fmt.Sprintf("%p\x00%s", r.Workspace, s.Database), &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	data, err := r.Workspace.ReadFile(ctx, s.Database, MaxDatabase)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, fmt.Errorf("database %s: %w", s.Database, err)
	}
	if missing && op == "query" {
		return rowsResult(newRowsJSON(s).close()), nil
	}
	db, err := openTable(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", s.Database, err)
	}
	defer func() { _ = db.Close() }()
	existed, err := tableExists(db, s.TableName())
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", s.Database, err)
	}
	if err := db.Exec(createSQL(s)); err != nil {
		return nil, fmt.Errorf("database %s: %w", s.Database, err)
	}
	rows, changed, err := q.run(db)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("database %s: the operation was stopped at its time limit (%s at most, less if the call's is shorter): %w",
				s.Database, tableTimeout, context.Cause(ctx))
		}
		return host.ErrorResult(fmt.Sprintf("%s: %v", s.ToolName(), err)), nil
	}
	if op != "query" && (changed > 0 || !existed) {
		out, err := serdes.Serialize(db, "main")
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", s.Database, err)
		}
		if len(out) > MaxDatabase {
			return host.ErrorResult(fmt.Sprintf("%s: the database would grow to %d bytes, over the %d-byte limit; nothing was written",
				s.ToolName(), len(out), MaxDatabase)), nil
		}
		if err := r.Workspace.WriteFile(ctx, s.Database, out); err != nil {
			return nil, fmt.Errorf("database %s: %w", s.Database, err)
		}
	}
	if op == "insert" {
		return tableResult(s, op, map[string]any{"id": db.LastInsertRowID()}, changed)
	}
	if q.rows {
		return rowsResult(rows), nil
	}
	return tableResult(s, op, nil, changed)
}

// openTable opens the bytes of a database file in memory, bounded in
// heap, value size, pages and time, with the schema it holds distrusted.
func openTable(ctx context.Context, data []byte) (*sqlite3.Conn, error) {
	db, err := sqlite3.OpenContext(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetInterrupt(ctx)
	db.HardHeapLimit(maxHeap)
	db.Limit(sqlite3.LIMIT_LENGTH, maxValue)
	db.Limit(sqlite3.LIMIT_SQL_LENGTH, maxValue)
	db.Limit(sqlite3.LIMIT_ATTACHED, 0)
	db.Limit(sqlite3.LIMIT_TRIGGER_DEPTH, 10)
	for _, c := range []struct {
		op sqlite3.DBConfig
		on bool
	}{
		// A database file is a stranger's: its views and triggers may not
		// call functions with side effects, nor may SQL rewrite the schema.
		{sqlite3.DBCONFIG_DEFENSIVE, true},
		{sqlite3.DBCONFIG_TRUSTED_SCHEMA, false},
	} {
		if _, err := db.Config(c.op, c.on); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	if len(data) > 0 {
		if err := serdes.Deserialize(db, "main", data); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("not a database SQLite can read: %w", err)
		}
	} else if err := db.Exec(fmt.Sprintf("PRAGMA page_size=%d", pageSize)); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := db.Exec(fmt.Sprintf("PRAGMA max_page_count=%d", MaxDatabase/pageSize)); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// tableExists reports whether the database has a table called name.
func tableExists(db *sqlite3.Conn, name string) (bool, error) {
	st, _, err := db.Prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?")
	if err != nil {
		return false, err
	}
	defer func() { _ = st.Close() }()
	if err := st.BindText(1, name); err != nil {
		return false, err
	}
	if !st.Step() {
		return false, st.Err()
	}
	return st.ColumnInt(0) > 0, nil
}

// quoteIdent quotes an SQL identifier. Field names are checked when the
// skill is parsed; quoting as well costs nothing.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

var sqlTypes = map[string]string{"string": "TEXT", "integer": "INTEGER", "number": "REAL",
	"boolean": "INTEGER", "object": "TEXT", "array": "TEXT"}

// createSQL makes the table if the database has none of its name.
func createSQL(s *mdskill.Skill) string {
	cols := []string{`"id" INTEGER PRIMARY KEY`}
	for _, f := range s.Fields {
		c := quoteIdent(f.Name) + " " + sqlTypes[f.Type]
		if f.Required {
			c += " NOT NULL"
		}
		if f.Unique {
			c += " UNIQUE"
		}
		cols = append(cols, c)
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", quoteIdent(s.TableName()), strings.Join(cols, ", "))
}

// A query is one operation's SQL and the values bound to it, in order.
type query struct {
	s     *mdskill.Skill
	sql   string
	args  []any
	types []string // each arg's field type
	// rows is set for a query, which reads rows; the others change them.
	rows bool
}

// buildQuery turns an operation into SQL whose every column is a declared
// field and whose every value is a bound parameter.
func buildQuery(s *mdskill.Skill, op string, in map[string]any) (*query, error) {
	q := &query{s: s}
	table := quoteIdent(s.TableName())
	values, _ := in["values"].(map[string]any)
	where, _ := in["where"].(map[string]any)
	all, _ := in["all"].(bool)
	switch op {
	case "create":
		q.sql = "SELECT 0 WHERE 0"
		return q, nil
	case "insert":
		if len(values) == 0 {
			return nil, errors.New("insert needs values: the fields of the new row")
		}
		var missing []string
		for _, f := range s.Fields {
			if _, ok := values[f.Name]; f.Required && !ok {
				missing = append(missing, f.Name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("insert: values lack the required field(s) %s", strings.Join(missing, ", "))
		}
		cols, marks := []string{}, []string{}
		for _, name := range sortedKeys(values) {
			if err := q.bindValue(name, values[name]); err != nil {
				return nil, err
			}
			cols, marks = append(cols, quoteIdent(name)), append(marks, "?")
		}
		q.sql = fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(cols, ", "), strings.Join(marks, ", "))
	case "query":
		cols := []string{`"id"`}
		for _, f := range s.Fields {
			cols = append(cols, quoteIdent(f.Name))
		}
		cond, err := q.where(where)
		if err != nil {
			return nil, err
		}
		order := "id"
		if o, ok := in["order_by"].(string); ok {
			if _, known := s.Field(o); !known && o != "id" {
				return nil, fmt.Errorf("order_by %q is not a field", o)
			}
			order = o
		}
		dir := "ASC"
		if d, _ := in["descending"].(bool); d {
			dir = "DESC"
		}
		limit := mdskill.DefaultQueryRows
		if l, ok := in["limit"].(float64); ok {
			limit = int(l)
		}
		if limit < 1 || limit > mdskill.MaxQueryRows {
			return nil, fmt.Errorf("limit %d is outside 1 to %d", limit, mdskill.MaxQueryRows)
		}
		q.sql = fmt.Sprintf("SELECT %s FROM %s%s ORDER BY %s %s LIMIT %d", strings.Join(cols, ", "), table, cond,
			quoteIdent(order), dir, limit)
		q.rows = true
	case "update":
		if len(values) == 0 {
			return nil, errors.New("update needs values: the fields to set")
		}
		var sets []string
		for _, name := range sortedKeys(values) {
			if err := q.bindValue(name, values[name]); err != nil {
				return nil, err
			}
			sets = append(sets, quoteIdent(name)+" = ?")
		}
		cond, err := q.whereOrAll(op, where, all)
		if err != nil {
			return nil, err
		}
		q.sql = fmt.Sprintf("UPDATE %s SET %s%s", table, strings.Join(sets, ", "), cond)
	case "delete":
		cond, err := q.whereOrAll(op, where, all)
		if err != nil {
			return nil, err
		}
		q.sql = fmt.Sprintf("DELETE FROM %s%s", table, cond)
	default:
		return nil, fmt.Errorf("operation %q is not one of %s", op, strings.Join(mdskill.TableOps, ", "))
	}
	return q, nil
}

// whereOrAll is the condition of an update or delete, which must pick
// rows or say all.
func (q *query) whereOrAll(op string, where map[string]any, all bool) (string, error) {
	if len(where) == 0 && !all {
		return "", fmt.Errorf("%s with no where would change every row; give where, or all: true", op)
	}
	return q.where(where)
}

// where is " WHERE a = ? AND b = ?" over the given fields, or "".
func (q *query) where(where map[string]any) (string, error) {
	var conds []string
	for _, name := range sortedKeys(where) {
		if err := q.bind(name, where[name]); err != nil {
			return "", err
		}
		conds = append(conds, quoteIdent(name)+" = ?")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), nil
}

// bindValue binds a value written to field name: checked against its
// type, then against its enumeration, pattern and lengths.
func (q *query) bindValue(name string, v any) error {
	if err := q.bind(name, v); err != nil {
		return err
	}
	if f, ok := q.s.Field(name); ok {
		return f.Check(v)
	}
	return nil
}

// bind adds the value of field name, checked against its type.
func (q *query) bind(name string, v any) error {
	typ := "integer"
	if name != "id" {
		f, ok := q.s.Field(name)
		if !ok {
			return fmt.Errorf("%q is not a field of %s (fields: %s)", name, q.s.Name, fieldNames(q.s))
		}
		typ = f.Type
	}
	ok := false
	switch typ {
	case "string":
		_, ok = v.(string)
	case "integer":
		f, isNum := v.(float64)
		ok = isNum && f == float64(int64(f))
	case "number":
		_, ok = v.(float64)
	case "boolean":
		_, ok = v.(bool)
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	}
	if !ok {
		return fmt.Errorf("field %s is %s; got %s", name, typ, jsonType(v))
	}
	q.args, q.types = append(q.args, v), append(q.types, typ)
	return nil
}

// run runs the query: the JSON of the rows a query reads (see
// rowsJSON), or how many rows changed.
func (q *query) run(db *sqlite3.Conn) ([]byte, int64, error) {
	st, _, err := db.Prepare(q.sql)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = st.Close() }()
	for i, v := range q.args {
		if err := bindValue(st, i+1, q.types[i], v); err != nil {
			return nil, 0, err
		}
	}
	if !q.rows {
		if err := st.Exec(); err != nil {
			return nil, 0, err
		}
		return nil, db.Changes(), nil
	}
	rows := newRowsJSON(q.s)
	for st.Step() {
		row := map[string]any{"id": st.ColumnInt64(0)}
		for i, f := range q.s.Fields {
			row[f.Name] = rows.cell(st, i+1, f.Type)
		}
		if !rows.add(row) {
			break // the result is full: read no more rows
		}
	}
	if err := st.Err(); err != nil {
		return nil, 0, err
	}
	return rows.close(), 0, nil
}

func bindValue(st *sqlite3.Stmt, i int, typ string, v any) error {
	switch typ {
	case "string":
		return st.BindText(i, v.(string))
	case "integer":
		return st.BindInt64(i, int64(v.(float64)))
	case "number":
		return st.BindFloat(i, v.(float64))
	case "boolean":
		return st.BindBool(i, v.(bool))
	default: // object, array: kept as their JSON text
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return st.BindText(i, string(b))
	}
}

// tableResult is the answer of an operation other than query (whose
// rows rowsJSON writes): its JSON as text and as the structured result.
func tableResult(s *mdskill.Skill, op string, out any, changed int64) (*host.ToolResult, error) {
	var v any
	switch op {
	case "insert":
		v = out
	case "create":
		v = map[string]any{"table": s.TableName(), "database": s.Database}
	default:
		v = map[string]any{"changed": changed}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &host.ToolResult{Content: string(b), Structured: b}, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fieldNames(s *mdskill.Skill) string {
	names := []string{"id"}
	for _, f := range s.Fields {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}
