package interp

import (
	_ "embed"
	"os"
	"path/filepath"
)

// gojqOrderFile keeps jq's key order in the shell's jq: written into the
// build's copy of gojq as skillrun_order.go (read it for the design).
//
//go:embed jqpatch/order.go
var gojqOrderFile []byte

// gojqOrderTests are order.go's tests, run in the patched copy by
// TestGojqOrderPatch (never part of the shell's build).
//
//go:embed jqpatch/order_test.go
var gojqOrderTests []byte

// gojqOrderHooks are where gojq builds, prints or iterates an object:
// each records or reads the object's key order through
// gojqOrderFile's functions; one more prints numbers as jq 1.6 does. Like shellHooks, each from must occur
// exactly once (n times), so a gojq release that moves the code fails
// the build naming the hook.
var gojqOrderHooks = []shellHook{
	// JSON text: fromjson (input is decoded by the jq command itself).
	{"func.go", "\tvar w any\n\tdec := json.NewDecoder(strings.NewReader(s))\n\tdec.UseNumber()\n\tif err := dec.Decode(&w); err != nil {\n",
		"\tdec := json.NewDecoder(strings.NewReader(s))\n\tdec.UseNumber()\n\tw, err := SkillrunDecode(dec)\n\tif err != nil {\n", 0},
	// {k: v, ...}, evaluated and constant.
	{"execute.go", "m := make(map[string]any, n)\n\t\t\tfor range n {\n",
		"m := make(map[string]any, n)\n\t\t\tskKs := make([]string, n)\n\t\t\tfor skI := range n {\n", 0},
	{"execute.go", "\t\t\t\tif _, ok := m[s]; !ok {\n\t\t\t\t\tm[s] = v\n\t\t\t\t}\n\t\t\t}\n\t\t\tenv.push(m)\n",
		"\t\t\t\tskKs[n-1-skI] = s\n\t\t\t\tif _, ok := m[s]; !ok {\n\t\t\t\t\tm[s] = v\n\t\t\t\t}\n\t\t\t}\n\t\t\tskSetOrder(m, skFirstUnique(skKs))\n\t\t\tenv.push(m)\n", 0},
	{"compiler.go", "\tw := make(map[string]any, l)\n\tfor i := range l {\n\t\tw[c.codes[pc+i*3].v.(string)] = c.codes[pc+i*3+2].v\n\t}\n",
		"\tw := make(map[string]any, l)\n\tskKs := make([]string, l)\n\tfor i := range l {\n\t\tw[c.codes[pc+i*3].v.(string)] = c.codes[pc+i*3+2].v\n\t\tskKs[i] = c.codes[pc+i*3].v.(string)\n\t}\n\tskSetOrder(w, skFirstUnique(skKs))\n", 0},
	// $ENV and env, in the environment's order.
	{"compiler.go", "\t\t\tc.append(&code{op: opconst, v: env})",
		"\t\t\tif c.environLoader != nil {\n\t\t\t\tskEnvOrder(env, c.environLoader())\n\t\t\t}\n\t\t\tc.append(&code{op: opconst, v: env})", 0},
	// Updates: setpath, assignments, del (copy on write, or in place
	// through gojq's allocator).
	{"func.go", "\tif a.allocated(v) {\n\t\tv[k] = u\n\t\treturn v, nil\n\t}\n\tw := a.makeObject(len(v) + 1)\n\tmaps.Copy(w, v)\n\tw[k] = u\n\treturn w, nil\n",
		"\tif a.allocated(v) {\n\t\tif _, ok := v[k]; !ok {\n\t\t\tskAppendKey(v, k)\n\t\t}\n\t\tv[k] = u\n\t\treturn v, nil\n\t}\n\tw := a.makeObject(len(v) + 1)\n\tmaps.Copy(w, v)\n\tw[k] = u\n\tskCopyOrder(w, v, k)\n\treturn w, nil\n", 0},
	// a + b, a * b, add.
	{"operator.go", "\t\t\tm := make(map[string]any, len(l)+len(r))\n\t\t\tmaps.Copy(m, l)\n\t\t\tmaps.Copy(m, r)\n\t\t\treturn m\n",
		"\t\t\tm := make(map[string]any, len(l)+len(r))\n\t\t\tmaps.Copy(m, l)\n\t\t\tmaps.Copy(m, r)\n\t\t\tskSetOrder(m, skJoin(l, r))\n\t\t\treturn m\n", 0},
	{"operator.go", "\tm := make(map[string]any, len(l)+len(r))\n\tmaps.Copy(m, l)\n\tfor k, v := range r {\n",
		"\tm := make(map[string]any, len(l)+len(r))\n\tmaps.Copy(m, l)\n\tskSetOrder(m, skJoin(l, r))\n\tfor k, v := range r {\n", 0},
	{"func.go", "\t\t\t\tm := maps.Clone(x)\n\t\t\t\tif m == nil {\n\t\t\t\t\tm = map[string]any{}\n\t\t\t\t}\n",
		"\t\t\t\tm := maps.Clone(x)\n\t\t\t\tif m == nil {\n\t\t\t\t\tm = map[string]any{}\n\t\t\t\t}\n\t\t\t\tskCopyOrder(m, x)\n", 0},
	{"func.go", "\t\t\tcase map[string]any:\n\t\t\t\tmaps.Copy(w, x)\n",
		"\t\t\tcase map[string]any:\n\t\t\t\tskSetOrder(w, skJoin(w, x))\n\t\t\t\tmaps.Copy(w, x)\n", 0},
	// match and capture build their objects in jq's order.
	{"func.go", "\treturn res\n}\n\nfunc compileRegexp", "\tskMatchOrder(res)\n\treturn res\n}\n\nfunc compileRegexp", 0},
	{"func.go", "\treturn w\n}\n\nfunc funcError", "\tskCapturesOrder(w, captures)\n\treturn w\n}\n\nfunc funcError", 0},
	// Numbers print as jq 1.6 prints them.
	{"encoder.go", "\tcase int:\n\t\te.w.Write(strconv.AppendInt(e.buf[:0], int64(v), 10))\n\tcase float64:\n\t\te.encodeFloat64(v)\n\tcase *big.Int:\n\t\te.w.Write(v.Append(e.buf[:0], 10))\n\tcase json.Number:\n\t\te.w.WriteString(v.String())\n",
		"\tcase int:\n\t\te.skNumber(float64(v))\n\tcase float64:\n\t\te.skNumber(v)\n\tcase *big.Int:\n\t\te.skNumber(skBigFloat(v))\n\tcase json.Number:\n\t\te.skNumber(skNumberFloat(v))\n", 0},
	// Reading: printing, .[] (and so paths, tostream), values (add,
	// join, flatten), to_entries through keys_unsorted. keys stays sorted.
	{"encoder.go", "\tslices.SortFunc(kvs, func(x, y keyVal) int {\n\t\treturn strings.Compare(x.key, y.key)\n\t})\n",
		"\tslices.SortFunc(kvs, skByOrder(vs, func(kv keyVal) string { return kv.key }, strings.Compare))\n", 0},
	{"execute.go", "\t\t\t\tslices.SortFunc(xs, func(x, y pathValue) int {\n\t\t\t\t\treturn strings.Compare(x.path.(string), y.path.(string))\n\t\t\t\t})\n",
		"\t\t\t\tslices.SortFunc(xs, skByOrder(v, func(x pathValue) string { return x.path.(string) }, strings.Compare))\n", 0},
	{"func.go", "\t\tvs := make([]any, len(v))\n\t\tfor i, k := range keys(v) {\n",
		"\t\tvs := make([]any, len(v))\n\t\tfor i, k := range skKeys(v) {\n", 0},
	{"func.go", "\"keys\":           argFunc0(funcKeys),\n",
		"\"keys\":           argFunc0(funcKeys),\n\t\t\"keys_unsorted\":  argFunc0(skKeysUnsorted),\n", 0},
	{"builtin.go", "\"to_entries\": {{Name: \"to_entries\", Body: &Query{Term: &Term{Type: TermTypeArray, Array: &Array{Query: &Query{Left: &Query{Term: &Term{Type: TermTypeFunc, Func: &Func{Name: \"keys\"}",
		"\"to_entries\": {{Name: \"to_entries\", Body: &Query{Term: &Term{Type: TermTypeArray, Array: &Array{Query: &Query{Left: &Query{Term: &Term{Type: TermTypeFunc, Func: &Func{Name: \"keys_unsorted\"}", 0},
}

// patchGojqOrder writes gojqOrderFile into the gojq copy in dir and
// hooks it in.
func patchGojqOrder(dir string) error {
	if err := applyHooks(dir, gojqOrderHooks); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "skillrun_order.go"), stripIgnore(gojqOrderFile), 0o644)
}
