package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
)

// jqOptions are the jq command-line options the shell supports: those
// scripts use (jq 1.6's names).
type jqOptions struct {
	filter                               string
	files                                []string
	raw, join, compact, nullInput, slurp bool
	rawInput, exitStatus, sortKeys, tab  bool
	asciiOutput                          bool
	indent                               int
	names                                []string // $name variables, in order
	values                               []any
	// positional are --args/--jsonargs values: $ARGS.positional.
	positional []any
}

// jq is jq over gojq, a pure-Go implementation of the jq language.
// Output follows jq 1.6's format (two-space indentation, -r, -c, -j,
// -S). Objects keep their keys in insertion order, as in jq: gojq sorts
// them, so the shell's build patches it (internal/interp/jqpatch) and
// this command decodes input with the patch's order-keeping decoder
// (jq_order.go).
func jq(e *proc.Env, args []string) int {
	o, code := parseJQArgs(e, args[1:])
	if code >= 0 {
		return code
	}
	q, err := gojq.Parse(withJQ16Defs(o.filter))
	if err != nil {
		fmt.Fprintf(e.Stderr, "jq: error: %v\njq: 1 compile error\n", err)
		return 3
	}
	inputs, names, parseErr, err := jqInputs(e, o)
	if err != nil {
		fmt.Fprintf(e.Stderr, "jq: error: %v\n", err)
		return 2
	}
	iter := &sliceIter{values: inputs, names: names}
	code, err = runJQ(e, o, q, iter)
	if err != nil {
		fmt.Fprintf(e.Stderr, "jq: error (at %s): %v\n", jqWhere(o), err)
		return 5
	}
	if parseErr != nil {
		// jq runs the filter on the values before the text that does
		// not parse, then stops with status 4.
		fmt.Fprintf(e.Stderr, "parse error: %v\n", parseErr)
		return 4
	}
	return code
}

// withJQ16Defs adds the definitions of jq 1.6's builtins that gojq
// dropped to a filter that uses them (definitions cannot precede a
// module directive, import or include).
func withJQ16Defs(filter string) string {
	t := strings.TrimSpace(filter)
	if !strings.Contains(filter, "leaf_paths") || strings.HasPrefix(t, "import") || strings.HasPrefix(t, "include") || strings.HasPrefix(t, "module") {
		return filter
	}
	return "def leaf_paths: paths(scalars); " + filter
}

// parseJQArgs reads jq's options; code >= 0 means stop with that status.
func parseJQArgs(e *proc.Env, args []string) (*jqOptions, int) {
	o := &jqOptions{indent: 2}
	usage := func(format string, a ...any) (*jqOptions, int) {
		fmt.Fprintf(e.Stderr, "jq: "+format+"\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n", a...)
		return nil, 2
	}
	haveFilter := false
	// After --args or --jsonargs, operands after the filter are $ARGS
	// values, not files (jq 1.6).
	argsMode := ""
	named := map[string]any{}
	var namedKeys []string
	positional := func(a string) (*jqOptions, int) {
		switch argsMode {
		case "--args":
			o.positional = append(o.positional, a)
		case "--jsonargs":
			var v any
			if err := decodeJSON(a, &v); err != nil {
				return usage("Invalid JSON text passed to --jsonargs")
			}
			o.positional = append(o.positional, v)
		default:
			o.files = append(o.files, a)
		}
		return nil, -1
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		need := func(n int) bool { return i+n < len(args) }
		switch {
		case a == "--":
			rest := args[i+1:]
			if !haveFilter && len(rest) > 0 {
				o.filter, haveFilter, rest = rest[0], true, rest[1:]
			}
			for _, a := range rest {
				if _, code := positional(a); code >= 0 {
					return nil, code
				}
			}
			i = len(args)
		case a == "--args" || a == "--jsonargs":
			argsMode = a
		case a == "--arg" || a == "--argjson" || a == "--slurpfile" || a == "--rawfile":
			if !need(2) {
				return usage("%s takes two parameters (e.g. %s varname value)", a, a)
			}
			name, val := args[i+1], args[i+2]
			i += 2
			var v any
			switch a {
			case "--arg":
				v = val
			case "--argjson":
				if err := decodeJSON(val, &v); err != nil {
					return usage("Invalid JSON text passed to --argjson")
				}
			default:
				b, err := os.ReadFile(e.Path(val))
				if err != nil {
					return usage("error: Could not open %s: %s", val, proc.ErrorText(err))
				}
				if a == "--rawfile" {
					v = string(b)
				} else {
					all, _, err := decodeAll(bytes.NewReader(b))
					if err != nil {
						return usage("Bad JSON in --slurpfile %s %s: %v", name, val, err)
					}
					v = all
				}
			}
			o.names, o.values = append(o.names, "$"+name), append(o.values, v)
			if _, ok := named[name]; !ok {
				namedKeys = append(namedKeys, name)
			}
			named[name] = v
		case a == "--indent":
			if !need(1) {
				return usage("--indent takes one parameter")
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n < 0 || n > 7 {
				return usage("Cannot indent more than 7 characters")
			}
			o.indent, i = n, i+1
		case a == "--tab":
			o.tab = true
		case a == "--raw-output":
			o.raw = true
		case a == "--join-output":
			o.raw, o.join = true, true
		case a == "--compact-output":
			o.compact = true
		case a == "--null-input":
			o.nullInput = true
		case a == "--slurp":
			o.slurp = true
		case a == "--raw-input":
			o.rawInput = true
		case a == "--exit-status":
			o.exitStatus = true
		case a == "--sort-keys":
			o.sortKeys = true
		case a == "--ascii-output":
			o.asciiOutput = true
		case a == "--monochrome-output" || a == "--color-output" || a == "--unbuffered":
		case strings.HasPrefix(a, "-") && len(a) > 1 && !strings.HasPrefix(a, "--"):
			for _, c := range a[1:] {
				switch c {
				case 'r':
					o.raw = true
				case 'j':
					o.raw, o.join = true, true
				case 'c':
					o.compact = true
				case 'n':
					o.nullInput = true
				case 's':
					o.slurp = true
				case 'R':
					o.rawInput = true
				case 'e':
					o.exitStatus = true
				case 'S':
					o.sortKeys = true
				case 'a':
					o.asciiOutput = true
				case 'M', 'C':
				default:
					return usage("Unknown option: %s", a)
				}
			}
		case strings.HasPrefix(a, "--"):
			return usage("Unknown option: %s", a)
		case !haveFilter:
			o.filter, haveFilter = a, true
		default:
			if _, code := positional(a); code >= 0 {
				return nil, code
			}
		}
	}
	if !haveFilter {
		return usage("no filter given")
	}
	pos := o.positional
	if pos == nil {
		pos = []any{}
	}
	setKeyOrder(named, namedKeys)
	jqArgs := map[string]any{"positional": pos, "named": named}
	setKeyOrder(jqArgs, []string{"positional", "named"})
	o.names = append(o.names, "$ARGS")
	o.values = append(o.values, jqArgs)
	return o, -1
}

// jqInputs reads the input values: JSON texts (or lines with -R) from
// the files or stdin, slurped into one array with -s. A text that does
// not parse ends the values, and is parseErr (with -s, no value is
// left).
//
// names gives, for each value, the file it was read from (jq's
// input_filename: "<stdin>" for standard input, "" for -n's null): the
// files are read as one stream, as jq reads them, and a value belongs to
// the file its text ends in.
func jqInputs(e *proc.Env, o *jqOptions) (vals []any, names []string, parseErr, err error) {
	var data []byte
	src := jqSources{names: []string{"<stdin>"}, ends: []int64{math.MaxInt64}}
	if len(o.files) > 0 {
		src = jqSources{}
		for _, f := range o.files {
			b, err := os.ReadFile(e.Path(f))
			if err != nil {
				return nil, nil, nil, fmt.Errorf("Could not open %s: %s", f, proc.ErrorText(err)) //nolint:staticcheck // jq's own message, capitalised as jq prints it
			}
			data = append(data, b...)
			src.names, src.ends = append(src.names, f), append(src.ends, int64(len(data)))
		}
	} else if data, err = io.ReadAll(e.Stdin); err != nil {
		return nil, nil, nil, err
	}
	vals, offs, err := readInputs(data, o)
	names = make([]string, len(vals))
	for i, off := range offs {
		names[i] = src.at(off)
	}
	if o.nullInput && !o.slurp {
		// input and inputs still read the rest; input that does not parse
		// is an error only for a filter that reads it (jq reads lazily).
		if err != nil {
			vals, names = append(vals, err), append(names, src.at(math.MaxInt64))
		}
		return append([]any{nil}, vals...), append([]string{""}, names...), nil, nil
	}
	if err != nil {
		if o.slurp {
			return nil, nil, err, nil
		}
		return vals, names, err, nil
	}
	if o.slurp {
		last := src.at(math.MaxInt64) // jq has read every file
		if o.rawInput {
			var sb strings.Builder
			for _, v := range vals {
				sb.WriteString(v.(string) + "\n")
			}
			return []any{sb.String()}, []string{last}, nil, nil
		}
		return []any{vals}, []string{last}, nil, nil
	}
	return vals, names, nil, nil
}

// jqSources are the files of jq's input stream, by the offset where each
// ends.
type jqSources struct {
	names []string
	ends  []int64
}

// at names the source the text ending at offset off came from.
func (s jqSources) at(off int64) string {
	for i, end := range s.ends {
		if off <= end {
			return s.names[i]
		}
	}
	if len(s.names) == 0 {
		return ""
	}
	return s.names[len(s.names)-1]
}

// readInputs reads the values of data (JSON texts, or lines with -R)
// and the offset where each ends.
func readInputs(data []byte, o *jqOptions) ([]any, []int64, error) {
	if !o.rawInput {
		vals, offs, err := decodeAll(bytes.NewReader(data))
		return vals, offs, jqParseError(data, err)
	}
	var vals []any
	var offs []int64
	for off := 0; off < len(data); {
		line, _, _ := bytes.Cut(data[off:], []byte("\n"))
		off += len(line)
		vals, offs = append(vals, string(line)), append(offs, int64(off))
		off++ // the newline
	}
	return vals, offs, nil
}

// decodeAll decodes a stream of JSON texts, numbers kept exact, and
// the offset where each ends.
func decodeAll(r io.Reader) ([]any, []int64, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var vals []any
	var offs []int64
	for {
		v, err := decodeValue(dec)
		if errors.Is(err, io.EOF) {
			return vals, offs, nil
		}
		if err != nil {
			return vals, offs, err
		}
		vals, offs = append(vals, v), append(offs, dec.InputOffset())
	}
}

// jqParseError words an error of decoding data as jq does where it can:
// "Unfinished JSON term at EOF at line 2, column 0" (a text cut short),
// "Unmatched '}'", with the line and column.
func jqParseError(data []byte, err error) error {
	if err == nil {
		return nil
	}
	at := len(data)
	msg := err.Error()
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		at = int(min(max(se.Offset+1, 0), int64(len(data)))) // jq counts the column after the character
		for _, c := range "}]" {
			if msg == fmt.Sprintf("invalid character '%c' looking for beginning of value", c) {
				msg = fmt.Sprintf("Unmatched '%c'", c)
			}
		}
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "Unfinished JSON term at EOF"
	}
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - (bytes.LastIndexByte(data[:at], '\n') + 1)
	return fmt.Errorf("%s at line %d, column %d", msg, line, col)
}

func decodeJSON(s string, v *any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var err error
	*v, err = decodeValue(dec)
	return err
}

// runJQ runs the filter over each input and prints the results.
func runJQ(e *proc.Env, o *jqOptions, q *gojq.Query, inputs *sliceIter) (int, error) {
	code, err := gojq.Compile(q,
		gojq.WithVariables(o.names),
		gojq.WithEnvironLoader(func() []string { return e.Environ }),
		gojq.WithInputIter(inputs),
		gojq.WithFunction("input_filename", 0, 0, inputs.inputFilename))
	if err != nil {
		fmt.Fprintf(e.Stderr, "jq: error: %s\njq: 1 compile error\n", jqCompileError(err, o.filter))
		return 3, nil
	}
	w := bufio.NewWriter(e.Stdout)
	defer func() { _ = w.Flush() }()
	var last any = nil
	seen := false
	for {
		v, ok := inputs.Next()
		if !ok {
			break
		}
		it := code.RunWithContext(e.Ctx, v, o.values...)
		for {
			out, ok := it.Next()
			if !ok {
				break
			}
			if err, ok := out.(error); ok {
				if he, ok := errors.AsType[*gojq.HaltError](err); ok {
					if s, ok := he.Value().(string); ok {
						fmt.Fprint(e.Stderr, s)
					}
					_ = w.Flush()
					return he.ExitCode(), nil
				}
				_ = w.Flush()
				return 0, err
			}
			if err := writeJQ(w, o, out); err != nil {
				return 0, err
			}
			last, seen = out, true
		}
		if o.nullInput && !o.slurp {
			break // -n runs the filter once, on null
		}
	}
	if o.exitStatus {
		switch {
		case !seen:
			return 4, nil
		case last == nil || last == false:
			return 1, nil
		}
	}
	return 0, nil
}

// writeJQ prints one result as jq does.
func writeJQ(w *bufio.Writer, o *jqOptions, v any) error {
	if s, ok := v.(string); ok && o.raw {
		_, _ = w.WriteString(s)
		if !o.join {
			_ = w.WriteByte('\n')
		}
		return nil
	}
	if o.sortKeys {
		v = sortedKeys(v)
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return err
	}
	if !o.compact {
		var buf bytes.Buffer
		indent := strings.Repeat(" ", o.indent)
		if o.tab {
			indent = "\t"
		}
		if err := json.Indent(&buf, b, "", indent); err == nil {
			b = buf.Bytes()
		}
	}
	if o.asciiOutput {
		b = asciiJSON(b)
	}
	_, _ = w.Write(b)
	if !o.join {
		_ = w.WriteByte('\n')
	}
	return nil
}

// sortedKeys is v with every object's keys in sorted order (jq -S): a
// copy, since v may be shared with the filter's other results.
func sortedKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		w := make(map[string]any, len(v))
		for k, x := range v {
			w[k] = sortedKeys(x)
		}
		setKeyOrder(w, slices.Sorted(maps.Keys(w)))
		return w
	case []any:
		w := make([]any, len(v))
		for i, x := range v {
			w[i] = sortedKeys(x)
		}
		return w
	}
	return v
}

// jqCompileError words gojq's "not defined" errors as jq 1.6 does:
// "$x is not defined at <top-level>, line 1:" and the filter.
func jqCompileError(err error, filter string) string {
	msg := err.Error()
	for _, p := range []string{"variable not defined: ", "function not defined: "} {
		if name, ok := strings.CutPrefix(msg, p); ok {
			return fmt.Sprintf("%s is not defined at <top-level>, line 1:\n%s", name, filter)
		}
	}
	return msg
}

// asciiJSON escapes every non-ASCII rune as \uXXXX (jq -a).
func asciiJSON(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&out, "\\u%04x\\u%04x", 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&out, "\\u%04x", r)
		}
	}
	return out.Bytes()
}

// jqWhere names the input of an error the way jq does.
func jqWhere(o *jqOptions) string {
	if len(o.files) > 0 {
		return o.files[len(o.files)-1] + ":0"
	}
	return "<stdin>:0"
}

// sliceIter iterates over the input values; `input` and `inputs` in a
// filter take from the same sequence. names are the values' files, and
// current the file of the last value taken (input_filename).
type sliceIter struct {
	values  []any
	names   []string
	i       int
	current string
}

func (s *sliceIter) Next() (any, bool) {
	if s.i >= len(s.values) {
		return nil, false
	}
	v := s.values[s.i]
	if s.i < len(s.names) {
		s.current = s.names[s.i]
	}
	s.i++
	return v, true
}

// inputFilename is jq's input_filename: the file of the input being
// read, null before any (-n).
func (s *sliceIter) inputFilename(any, []any) any {
	if s.current == "" {
		return nil
	}
	return s.current
}
