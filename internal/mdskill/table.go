package mdskill

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
)

// A tskill keeps one table in a database file of the workspace:
//
//	## Fields       its columns, written as parameters:
//	                - `email` (string, required): the address
//	## Database     the file, relative to the workspace (default <name>.db)
//
// Every row also has an integer id. The tool's input is one operation
// over the fields (TableOps), so a model can only ever name a declared
// column, and every value is bound, never spliced into SQL.

// TableOps are the operations a tskill's tool takes.
var TableOps = []string{"create", "insert", "query", "update", "delete"}

// Bounds of a tskill.
const (
	// MaxQueryRows is the most rows one query returns.
	MaxQueryRows = 1000
	// DefaultQueryRows is what a query returns when it gives no limit.
	DefaultQueryRows = 100
	maxFields        = 64
)

// columnName is what a field may be called: an SQL identifier that needs
// no quoting in any engine.
var columnName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// TableName is the table a tskill keeps: its name, - turned into _.
func (s *Skill) TableName() string { return strings.ReplaceAll(s.Name, "-", "_") }

// Field returns the field called name.
func (s *Skill) Field(name string) (Param, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Param{}, false
}

func (p *parser) fields(sec *section) []Param {
	fields := p.params(sec, "fields")
	var out []Param
	for _, f := range fields {
		switch {
		case !columnName.MatchString(f.Name):
			p.errf(f.Line, "fields", "field %q: a column name is a letter or _ then letters, digits and _", f.Name)
		case strings.EqualFold(f.Name, "id"):
			p.errf(f.Line, "fields", "field id: every row has an id already; name the field otherwise")
		default:
			out = append(out, f)
		}
	}
	if len(out) > maxFields {
		p.errf(sec.line, "fields", "%d fields, over the limit of %d", len(out), maxFields)
	}
	return out
}

func (p *parser) database(sec *section) string {
	var lines []string
	at := sec.line
	for i, l := range sec.lines {
		if t := strings.TrimSpace(l); t != "" {
			if len(lines) == 0 {
				at = sec.first + i
			}
			lines = append(lines, t)
		}
	}
	if len(lines) != 1 {
		p.errf(sec.line, "database", "## Database is one line: the database file, relative to the workspace")
		return ""
	}
	db := strings.Trim(lines[0], "`")
	clean := path.Clean(db)
	switch {
	case strings.HasPrefix(db, "/") || strings.Contains(db, `\`):
		p.errf(at, "database", "%q: give a path relative to the workspace, with / between segments", db)
	case clean == "." || clean == ".." || strings.HasPrefix(clean, "../"):
		p.errf(at, "database", "%q leads outside the workspace", db)
	default:
		return clean
	}
	return ""
}

// checkTable checks what a tskill needs (its fields) and that the other
// kinds do not declare a table.
func (p *parser) checkTable(s *Skill, seen map[string]int) {
	if s.Kind != KindTable {
		for _, key := range []string{"fields", "database"} {
			if line, ok := seen[key]; ok {
				p.warnf(line, key, "an %s keeps no table; the section is ignored", s.Kind)
			}
		}
		return
	}
	if _, ok := seen["fields"]; !ok {
		p.errf(1, "fields", "a tskill needs a ## Fields section: its columns, as - `name` (type, required|optional): description")
	}
	if line, ok := seen["parameters"]; ok {
		p.warnf(line, "parameters", "a tskill's input is an operation over its ## Fields; ## Parameters is ignored")
	}
	if s.Database == "" {
		s.Database = s.Name + ".db"
	}
}

// tableSchema is a tskill's input: an operation, the values it writes,
// the equalities that pick rows, and a query's order and limit, every
// column one of the declared fields.
func (s *Skill) tableSchema() json.RawMessage {
	values := map[string]any{}
	where := map[string]any{"id": map[string]any{"type": "integer", "description": "The row's id."}}
	columns := []string{"id"}
	for _, f := range s.Fields {
		prop := map[string]any{"type": f.Type}
		if f.Description != "" {
			prop["description"] = f.Description
		}
		values[f.Name] = prop
		where[f.Name] = prop
		columns = append(columns, f.Name)
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"operation": map[string]any{"enum": TableOps, "description": "create makes the table (insert does too); " +
				"insert adds the row in values; query returns the rows matching where; update sets values in the rows matching where; " +
				"delete removes the rows matching where."},
			"values": map[string]any{"type": "object", "properties": values, "additionalProperties": false,
				"description": "The fields an insert or update writes."},
			"where": map[string]any{"type": "object", "properties": where, "additionalProperties": false,
				"description": "Fields the rows must equal (all of them); none picks every row, which update and delete refuse unless all is true."},
			"all":        map[string]any{"type": "boolean", "description": "Let an update or delete with no where change every row."},
			"order_by":   map[string]any{"enum": columns, "description": "The column a query sorts by (default id)."},
			"descending": map[string]any{"type": "boolean"},
			"limit":      map[string]any{"type": "integer", "minimum": 1, "maximum": MaxQueryRows, "description": "The most rows a query returns (default 100)."},
		},
		"required":             []string{"operation"},
		"additionalProperties": false,
	}
	b, _ := json.Marshal(schema)
	return b
}
