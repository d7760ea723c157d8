//go:build ignore

// Tests of order.go, run by internal/interp's TestGojqOrderPatch inside
// the patched copy of gojq (package gojq), natively.

package gojq

import (
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

func skRun(t *testing.T, filter, input string) []string {
	t.Helper()
	q, err := Parse(filter)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(input))
	dec.UseNumber()
	var out []string
	for {
		v, err := SkillrunDecode(dec)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		iter := q.Run(v)
		for {
			r, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := r.(error); ok {
				t.Fatal(err)
			}
			b, err := Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
}

// The outputs are Debian's jq 1.6's for the same filters and input.
func TestSkOrder(t *testing.T) {
	for _, c := range []struct{ filter, input, want string }{
		{".", `{"b":1,"a":{"d":1,"c":2}}`, `{"b":1,"a":{"d":1,"c":2}}`},
		{".", `{"a":{"x":1,"y":2},"b":0,"a":[1,{"q":1,"p":2}]}`, `{"a":[1,{"q":1,"p":2}],"b":0}`},
		{"keys_unsorted", `{"k\u0065y":1,"a\"b":2,"":3}`, `["key","a\"b",""]`},
		{"{z: 1, y: .b} + {a: 2, z: 0}", `{"b":1}`, `{"z":0,"y":1,"a":2}`},
		{". * {\"a\": {\"c\": 1, \"e\": 2}}", `{"b":1,"a":{"d":1}}`, `{"b":1,"a":{"d":1,"c":1,"e":2}}`},
		{"del(.b) | .b = 3", `{"b":1,"a":2}`, `{"a":2,"b":3}`},
		{"to_entries | from_entries", `{"b":1,"a":2}`, `{"b":1,"a":2}`},
		{"[.[]]", `{"b":1,"a":2}`, `[1,2]`},
		{"reduce range(3) as $i ({}; .[\"k\\(2-$i)\"] = $i)", `null`, `{"k2":0,"k1":1,"k0":2}`},
		{"\"a1\" | match(\"(?<n>a)\")", `null`, `{"offset":0,"length":1,"string":"a","captures":[{"offset":0,"length":1,"string":"a","name":"n"}]}`},
		{"[1.0, 2.50, 1e16, 1.5e16, 0.0001, 0.00001, 1e-7, 12345678901234567890, 1e1000]", `null`,
			`[1,2.5,1e+16,15000000000000000,0.0001,1e-05,1e-07,12345678901234567000,1.7976931348623157e+308]`},
	} {
		got := skRun(t, c.filter, c.input)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s on %s: got %q, want %s", c.filter, c.input, got, c.want)
		}
	}
}

// TestSkOrderCollected: entries go with their objects, so the registry
// does not grow with the objects a filter builds and drops.
func TestSkOrderCollected(t *testing.T) {
	skRun(t, "[range(20000) | {b: ., a: .}] | length", "null")
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		skOrderMu.Lock()
		n := len(skOrders)
		skOrderMu.Unlock()
		if n < 1000 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d entries left after the objects were dropped", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
