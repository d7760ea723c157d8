package run

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/mdskill"
)

// Bounds of what a Markdown skill returns. Every result is at most
// host.MaxResultContent bytes of content and as much of structured
// value, the bound script tools keep; each part is cut while the result
// is built, so a hostile database, reply or step never makes the host
// hold more than about that much either.
const (
	// maxCell bounds the JSON of one cell of a query's rows.
	maxCell = 64 << 10
	// maxKey bounds the JSON of one cell's key and separators: a field
	// name is at most 63 bytes.
	maxKey = 80
	// resultReserve is room kept in a result for what closes it: a
	// query's note, a reply's usage.
	resultReserve = 2 << 10
)

// rowsJSON writes the answer of a query, {"rows": [...]}, one row at a
// time, within host.MaxResultContent: each cell is cut to cellCap bytes
// of JSON, and a row that no longer fits ends the query, so no more rows
// are read. A cut answer says so in "truncated" and "note".
type rowsJSON struct {
	buf      bytes.Buffer
	cellCap  int // the most JSON bytes one cell takes
	rows     int
	cutCells int
	full     bool // a row did not fit: the rows after it were not read
}

func newRowsJSON(s *mdskill.Skill) *rowsJSON {
	// A cell's cap leaves room for a whole row of capped cells, so the
	// first row always fits.
	per := (host.MaxResultContent-resultReserve)/(len(s.Fields)+1) - maxKey
	r := &rowsJSON{cellCap: min(maxCell, per)}
	r.buf.WriteString(`{"rows":[`)
	return r
}

// cell reads column i as the field's type, within cellCap; a value of
// another type (a hand-edited file) is returned as SQLite holds it.
// Only the part of a long text that is kept is copied out of SQLite.
func (r *rowsJSON) cell(st *sqlite3.Stmt, i int, typ string) any {
	switch st.ColumnType(i) {
	case sqlite3.NULL:
		return nil
	case sqlite3.INTEGER:
		if typ == "boolean" {
			return st.ColumnBool(i)
		}
		return st.ColumnInt64(i)
	case sqlite3.FLOAT:
		f := st.ColumnFloat(i)
		if math.IsInf(f, 0) || math.IsNaN(f) { // no JSON number
			return fmt.Sprint(f)
		}
		return f
	case sqlite3.BLOB:
		raw := st.ColumnRawBlob(i)
		if base64.StdEncoding.EncodedLen(len(raw))+2 > r.cellCap {
			r.cutCells++
			return fmt.Sprintf("[cut: a blob of %d bytes, over the %d-byte limit of a cell]", len(raw), r.cellCap)
		}
		return bytes.Clone(raw)
	}
	raw := st.ColumnRawText(i)
	if (typ == "object" || typ == "array") && len(raw) <= r.cellCap && json.Valid(raw) {
		// Compacted and escaped as it will be sent, to measure it.
		if b, err := json.Marshal(json.RawMessage(raw)); err == nil && len(b) <= r.cellCap {
			return json.RawMessage(b)
		}
	}
	text, cut := jsonCut(string(raw[:min(len(raw), r.cellCap)]), len(raw), r.cellCap)
	if cut {
		r.cutCells++
	}
	return text
}

// add appends row, or reports false if it does not fit in what is left.
func (r *rowsJSON) add(row map[string]any) bool {
	b, err := json.Marshal(row)
	if err != nil || r.buf.Len()+len(b)+1 > host.MaxResultContent-resultReserve {
		r.full = true
		return false
	}
	if r.rows > 0 {
		r.buf.WriteByte(',')
	}
	r.buf.Write(b)
	r.rows++
	return true
}

// close ends the answer, with the note of what was cut, and returns it.
func (r *rowsJSON) close() []byte {
	r.buf.WriteByte(']')
	var note string
	if r.full {
		note = fmt.Sprintf("only the first %d rows are here: the answer reached its %d-byte limit, so no more rows were read; narrow the query (where on a field, or a smaller limit) to see the others. ",
			r.rows, host.MaxResultContent)
	}
	if r.cutCells > 0 {
		note += fmt.Sprintf("%d cells over %d bytes are cut, each ending with [cut: ...]; such a cell is too large to read whole through this tool.",
			r.cutCells, r.cellCap)
	}
	if note != "" {
		b, _ := json.Marshal(note)
		r.buf.WriteString(`,"truncated":true,"note":`)
		r.buf.Write(b)
	}
	r.buf.WriteByte('}')
	return r.buf.Bytes()
}

func rowsResult(b []byte) *host.ToolResult {
	return &host.ToolResult{Content: string(b), Structured: b}
}

// jsonCut returns s, the first bytes of a text of total bytes, whole if
// it is the whole text and its JSON string takes at most limit bytes;
// or else its longest prefix whose JSON string, with the host.CutNotice
// of what is left out, takes at most limit bytes.
//
// JSON may take six bytes for one (a control character is \u0001), so
// the limit is on the JSON, not on the text: a cell of control
// characters must not grow sixfold past its bound when sent.
func jsonCut(s string, total, limit int) (string, bool) {
	if total == len(s) && jsonPrefix(s, limit-2) == len(s) { // 2: the quotes
		return s, false
	}
	notice := len(host.CutNotice(int64(total))) + 1 // its \n takes two bytes
	n := jsonPrefix(s, limit-2-notice)
	return s[:n] + host.CutNotice(int64(total-n)), true
}

// jsonPrefix is the length of the longest prefix of s, cut at a rune,
// whose JSON string (without quotes) takes at most budget bytes.
func jsonPrefix(s string, budget int) int {
	n, used := 0, 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if used += jsonRuneLen(r, size); used > budget {
			break
		}
		n += size
	}
	return n
}

// jsonRuneLen is at least the bytes encoding/json writes for the rune r
// of size bytes in a string.
func jsonRuneLen(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1, // written as \ufffd
		r < 0x20, r == '<', r == '>', r == '&', r == '\u2028', r == '\u2029':
		return 6
	case r == '"', r == '\\':
		return 2
	}
	return size
}

// fitText cuts text so that its JSON string takes at most limit bytes,
// with the host.CutNotice of what it leaves out: what a model replied, or
// code printed, before it goes into a result.
func fitText(text string, limit int) string {
	out, _ := jsonCut(text, len(text), max(limit, 0))
	return out
}
