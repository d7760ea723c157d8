package mdskill

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A tskill keeps one table in a database file of the workspace:
//
//	## Fields         its columns, written as parameters:
//	                  - `email` (string, required): the address
//	                  or as AchillesAgentLib writes them, a ### section a
//	                  field with #### parts (see headingFields)
//	## Database       the file, relative to the workspace (default <name>.db)
//	## Table Purpose  what the table keeps (the description if the title
//	                  has no paragraph)
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

// fields reads ## Fields: parameter lines, or a ### section a field.
func (p *parser) fields(sec *section, s *Skill) []Param {
	if hasFieldHeadings(sec) {
		return p.headingFields(sec, s)
	}
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

// hasFieldHeadings reports whether ## Fields is written a ### section a
// field (outside fenced blocks).
func hasFieldHeadings(sec *section) bool {
	fence := ""
	for _, l := range sec.lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		case fenceOf(t) != "":
			fence = fenceOf(t)
		case strings.HasPrefix(l, "### "):
			return true
		}
	}
	return false
}

// A fieldSection is one ### field of ## Fields: its text before any ####
// (its description, as AchillesAgentLib reads it) and its #### parts.
type fieldSection struct {
	name  string
	line  int
	intro []string
	parts []*section
}

// headingFields reads ## Fields as AchillesAgentLib writes it:
//
//	### email
//	#### Description              the column's description
//	#### Aliases                  ["mail", "address"], a list, or a, b
//	#### Field Value Is Required  present: NOT NULL (unless it says no)
//	#### Field Value Validator    the rule in words, told to the model
//	#### PrimaryKey               generated (auto-increment, ...): the row's
//	                              id; otherwise a unique required column
//	#### Type                     string, integer, decimal, boolean, json,
//	                              varchar(255)... (default string)
//	#### Field Value Enumerator   a JSON list: the values allowed
//	#### Unique, #### Pattern, #### MinLength, #### MaxLength: checked
//	#### Default                  told to the model
//	#### Field Value Derivator    a computed field: no column
//
// Presenters, resolvers, grouping and indexing parts drive upstream's
// generated code; they are read past without a word.
func (p *parser) headingFields(sec *section, s *Skill) []Param {
	var list []*fieldSection
	var cur *fieldSection
	var part *section
	fence := ""
	for i, l := range sec.lines {
		n := sec.first + i
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		} else if f := fenceOf(t); f != "" {
			fence = f
		} else if h, ok := strings.CutPrefix(l, "#### "); ok {
			if cur == nil {
				p.errf(n, "fields", "#### %s is outside a field: each field is a ### section", strings.TrimSpace(h))
				continue
			}
			part = &section{title: strings.TrimSpace(strings.TrimRight(h, "#")), line: n, first: n + 1}
			cur.parts = append(cur.parts, part)
			continue
		} else if h, ok := strings.CutPrefix(l, "### "); ok {
			cur, part = &fieldSection{name: strings.Trim(strings.TrimSpace(strings.TrimRight(h, "#")), "`"), line: n}, nil
			list = append(list, cur)
			continue
		} else if paramLine.MatchString(l) {
			p.errf(n, "fields", "a field line among ### field sections: write every field one way")
			continue
		}
		switch {
		case part != nil:
			part.lines = append(part.lines, l)
		case cur != nil:
			cur.intro = append(cur.intro, l)
		}
		// Text before the first field is a note to the author.
	}
	if len(list) > maxFields {
		p.errf(sec.line, "fields", "%d fields, over the limit of %d", len(list), maxFields)
		return nil
	}
	var out []Param
	seen := map[string]int{}
	keyLine := 0
	for _, fs := range list {
		f, pk, derived, ok := p.headingField(fs)
		if !ok {
			continue
		}
		if first, dup := seen[strings.ToLower(f.Name)]; dup {
			p.errf(fs.line, "fields", "field %s again (first on line %d)", f.Name, first)
			continue
		}
		seen[strings.ToLower(f.Name)] = fs.line
		if derived {
			p.warnf(fs.line, "fields", "field %s is derived (#### Field Value Derivator): AchillesAgentLib computes it with generated code; skillrun keeps no column for it", f.Name)
			continue
		}
		if pk != nil {
			if keyLine != 0 {
				p.errf(fs.line, "fields", "field %s is a second primary key (the first is on line %d): a table has one", f.Name, keyLine)
				continue
			}
			keyLine = fs.line
			if generatedKey(*pk) {
				// The row's own id is generated: the field is it.
				if f.Type != "integer" && f.Type != "string" {
					p.warnf(fs.line, "fields", "field %s: the row's id is an integer, not %s", f.Name, f.Type)
				}
				s.KeyField = f.Name
				continue
			}
			f.Required, f.Unique = true, true
		}
		if strings.EqualFold(f.Name, "id") {
			p.errf(fs.line, "fields", "field id: every row has an id already; name the field otherwise (or make it the #### PrimaryKey, generated)")
			continue
		}
		out = append(out, f)
	}
	return out
}

// headingField reads one ### field. pk is its #### PrimaryKey text (nil
// for none); derived is set for a computed field.
func (p *parser) headingField(fs *fieldSection) (f Param, pk *string, derived, ok bool) {
	f = Param{Name: fs.name, Type: "string", Line: fs.line}
	if !columnName.MatchString(f.Name) {
		p.errf(fs.line, "fields", "field %q: a column name is a letter or _ then letters, digits and _", f.Name)
		return f, nil, false, false
	}
	f.Description = strings.TrimSpace(strings.Join(fs.intro, "\n"))
	ok = true
	typed := false
	for _, part := range fs.parts {
		body := strings.TrimSpace(strings.Join(part.lines, "\n"))
		bad := func(format string, args ...any) {
			p.errf(part.line, "fields", "field %s: #### %s: %s", f.Name, part.title, fmt.Sprintf(format, args...))
			ok = false
		}
		switch partKey(part.title) {
		case "description":
			f.Description = strings.TrimSpace(f.Description + "\n" + body)
		case "aliases", "alias":
			f.Aliases = aliasList(body)
		case "fieldvalueisrequired", "valueisrequired", "isrequired", "required", "requirement":
			f.Required = !negative(body)
		case "primarykey", "primary", "pk":
			text := body
			pk = &text
		case "fieldvaluevalidator", "valuevalidator", "validator":
			f.Validator = body
		case "type", "datatype":
			typ, maxLen, known := columnType(body)
			if !known {
				bad("%q is not a type skillrun knows (string, text, integer, number, decimal, boolean, json, object, array, date, email, url, uuid...)", firstLine(body))
				continue
			}
			f.Type, typed = typ, true
			if maxLen > 0 {
				f.MaxLength = maxLen
			}
		case "maxlength", "minlength":
			n, err := strconv.Atoi(strings.Fields(body + " x")[0])
			if err != nil || n < 0 {
				bad("not a length: %q", firstLine(body))
				continue
			}
			if partKey(part.title) == "maxlength" {
				f.MaxLength = n
			} else {
				f.MinLength = n
			}
		case "pattern", "regex":
			pat := strings.Trim(firstLine(body), "`")
			if _, err := regexp.Compile(pat); err != nil || pat == "" {
				bad("not a regular expression: %q", pat)
				continue
			}
			f.Pattern = pat
		case "fieldvalueenumerator", "valueenumerator", "enumerator", "enum":
			if values, found := jsonList(body); found {
				f.Enum = values
			} else if body != "" {
				f.Validator = strings.TrimSpace(f.Validator + "\nValues: " + body)
			}
		case "unique":
			f.Unique = !negative(body)
		case "indexed", "index":
			f.Unique = f.Unique || strings.Contains(strings.ToLower(body), "unique")
		case "default", "defaultvalue":
			f.Default = body
		case "fieldvaluederivator", "valuederivator", "derivator", "derived", "computed":
			derived = true
		case "fieldnamepresenter", "namepresenter", "fieldpresenter", "fieldvaluepresenter", "valuepresenter", "presenter",
			"fieldvalueresolver", "valueresolver", "resolver", "grouping", "group":
			// upstream's generated code: nothing to do here
		default:
			p.warnf(part.line, "fields", "field %s: #### %s means nothing to skillrun; it is ignored", f.Name, part.title)
		}
	}
	if f.Type != "string" && (f.Pattern != "" || f.MinLength > 0 || f.MaxLength > 0) {
		p.warnf(fs.line, "fields", "field %s: a pattern or length bounds only a string; ignored for %s", f.Name, f.Type)
		f.Pattern, f.MinLength, f.MaxLength = "", 0, 0
	}
	if f.MaxLength > 0 && f.MinLength > f.MaxLength {
		p.errf(fs.line, "fields", "field %s: MinLength %d is over MaxLength %d", f.Name, f.MinLength, f.MaxLength)
		ok = false
	}
	for _, v := range f.Enum {
		if !jsonTypeIs(v, f.Type) {
			hint := ""
			if !typed {
				hint = " (declare it with #### Type)"
			}
			p.errf(fs.line, "fields", "field %s: the enumerated value %v is not of its type %s%s", f.Name, v, f.Type, hint)
			ok = false
			break
		}
	}
	return f, pk, derived, ok
}

// partKey is a #### heading lower-cased with only its letters and digits
// ("Field Value Is Required" is fieldvalueisrequired), as
// AchillesAgentLib compares them.
func partKey(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// negative reports whether a part's text says no ("No", "Optional",
// "false"); an empty part says yes, as its heading does.
func negative(body string) bool {
	w := strings.Fields(strings.ToLower(body))
	if len(w) == 0 {
		return false
	}
	first := strings.Trim(w[0], ".,;:!")
	return first == "no" || first == "not" || first == "false" || first == "optional" || first == "never"
}

// generatedKey reports whether a #### PrimaryKey text says the store
// makes the value (or says nothing: upstream's default is
// auto-increment).
func generatedKey(text string) bool {
	t := strings.ToLower(text)
	if strings.TrimSpace(t) == "" {
		return true
	}
	for _, w := range []string{"auto", "increment", "generat", "serial", "sequence"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// columnTypes map the type words of AchillesAgentLib's descriptors to a
// column's JSON type.
var columnTypes = map[string]string{
	"string": "string", "varchar": "string", "char": "string", "text": "string", "longtext": "string",
	"email": "string", "url": "string", "uuid": "string", "date": "string", "datetime": "string",
	"timestamp": "string", "time": "string",
	"int": "integer", "integer": "integer", "bigint": "integer",
	"number": "number", "decimal": "number", "float": "number", "double": "number", "numeric": "number", "real": "number",
	"boolean": "boolean", "bool": "boolean",
	"json": "object", "jsonb": "object", "object": "object",
	"array": "array", "list": "array",
}

var typeWord = regexp.MustCompile(`^` + "`?" + `([A-Za-z]+)\s*(?:\(\s*(\d+)\s*\))?`)

// columnType reads a #### Type: its first word (varchar(255) bounds the
// length too).
func columnType(body string) (typ string, maxLen int, ok bool) {
	m := typeWord.FindStringSubmatch(firstLine(body))
	if m == nil {
		return "", 0, false
	}
	typ, ok = columnTypes[strings.ToLower(m[1])]
	if ok && m[2] != "" && typ == "string" {
		maxLen, _ = strconv.Atoi(m[2])
	}
	return typ, maxLen, ok
}

// Bounds of a field's lists.
const (
	maxAliases = 32
	maxEnum    = 256
)

// aliasList reads #### Aliases: a JSON list, a bulleted list, or names
// separated by commas or lines.
func aliasList(body string) []string {
	var raw []string
	if strings.HasPrefix(body, "[") {
		var list []string
		if json.Unmarshal([]byte(firstLine(body)), &list) == nil {
			raw = list
		} else {
			raw = strings.Split(strings.Trim(firstLine(body), "[]"), ",")
		}
	} else {
		for _, l := range strings.Split(body, "\n") {
			if item, ok := cutBullet(strings.TrimSpace(l)); ok {
				l = item
			}
			raw = append(raw, strings.Split(l, ",")...)
		}
	}
	var out []string
	for _, a := range raw {
		a = strings.Trim(strings.TrimSpace(a), "\"'`")
		if a != "" && len(a) <= 64 && !slices.Contains(out, a) && len(out) < maxAliases {
			out = append(out, a)
		}
	}
	return out
}

// jsonList finds a JSON list of values (strings, numbers, booleans) in a
// part's text, as in `Return ["active", "inactive"]`.
func jsonList(body string) ([]any, bool) {
	i, j := strings.IndexByte(body, '['), strings.LastIndexByte(body, ']')
	if i < 0 || j < i {
		return nil, false
	}
	var list []any
	if json.Unmarshal([]byte(body[i:j+1]), &list) != nil || len(list) == 0 || len(list) > maxEnum {
		return nil, false
	}
	for _, v := range list {
		switch v.(type) {
		case string, float64, bool:
		default:
			return nil, false
		}
	}
	return list, true
}

// jsonTypeIs reports whether a decoded JSON value is of a column type.
func jsonTypeIs(v any, typ string) bool {
	switch x := v.(type) {
	case string:
		return typ == "string"
	case float64:
		return typ == "number" || typ == "integer" && x == float64(int64(x))
	case bool:
		return typ == "boolean"
	case map[string]any:
		return typ == "object"
	case []any:
		return typ == "array"
	}
	return false
}

// Check checks a value written to the field against what the field
// allows besides its type: its enumeration, pattern and lengths. (The
// tool's schema says the same; this holds for a caller that skips it.)
func (f Param) Check(v any) error {
	if len(f.Enum) > 0 && !slices.ContainsFunc(f.Enum, func(e any) bool { return e == v }) {
		b, _ := json.Marshal(f.Enum)
		return fmt.Errorf("field %s is one of %s", f.Name, b)
	}
	str, isString := v.(string)
	if !isString {
		return nil
	}
	n := utf8.RuneCountInString(str)
	switch {
	case f.MinLength > 0 && n < f.MinLength:
		return fmt.Errorf("field %s is at least %d characters; got %d", f.Name, f.MinLength, n)
	case f.MaxLength > 0 && n > f.MaxLength:
		return fmt.Errorf("field %s is at most %d characters; got %d", f.Name, f.MaxLength, n)
	}
	if f.Pattern != "" {
		if re, err := regexp.Compile(f.Pattern); err == nil && !re.MatchString(str) {
			return fmt.Errorf("field %s must match %s", f.Name, f.Pattern)
		}
	}
	return nil
}

// columnDescription is what the tool's schema says of a field: its
// description, aliases, rule in words and default.
func (f Param) columnDescription() string {
	parts := []string{}
	if f.Description != "" {
		parts = append(parts, f.Description)
	}
	if len(f.Aliases) > 0 {
		parts = append(parts, "Also called: "+strings.Join(f.Aliases, ", ")+".")
	}
	if f.Validator != "" {
		parts = append(parts, "Rule: "+f.Validator)
	}
	if f.Default != "" {
		parts = append(parts, "Default: "+f.Default)
	}
	if f.Unique {
		parts = append(parts, "No two rows share a value.")
	}
	return strings.Join(parts, "\n")
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
		for _, key := range []string{"fields", "database", "table-purpose"} {
			if line, ok := seen[key]; ok {
				p.warnf(line, key, "an %s keeps no table; the section is ignored", s.Kind)
			}
		}
		return
	}
	if _, ok := seen["fields"]; !ok {
		p.errf(1, "fields", "a tskill needs a ## Fields section: its columns, as - `name` (type, required|optional): description, or a ### section a field")
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
	idDesc := "The row's id."
	if s.KeyField != "" && s.KeyField != "id" {
		idDesc = fmt.Sprintf("The row's id: the skill's primary key %s.", s.KeyField)
	}
	where := map[string]any{"id": map[string]any{"type": "integer", "description": idDesc}}
	columns := []string{"id"}
	for _, f := range s.Fields {
		prop := map[string]any{"type": f.Type}
		if d := f.columnDescription(); d != "" {
			prop["description"] = d
		}
		if len(f.Enum) > 0 {
			prop["enum"] = f.Enum
		}
		if f.Pattern != "" {
			prop["pattern"] = f.Pattern
		}
		if f.MinLength > 0 {
			prop["minLength"] = f.MinLength
		}
		if f.MaxLength > 0 {
			prop["maxLength"] = f.MaxLength
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
