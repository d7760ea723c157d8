package capabilities_test

import (
	"fmt"

	"github.com/skillrun/skillrun/capabilities"
)

// A Resolver grants as `skillrun run --policy FILE --allow-env=LANG
// --timeout 5s` does: an embedder fills in the same fields and gets the
// same answer.
func ExampleResolver() {
	policy, err := capabilities.ParsePolicy([]byte(`
[default]
read = ["workspace"]
`), "policy.toml")
	if err != nil {
		panic(err)
	}
	r := &capabilities.Resolver{
		Policy:  policy,
		Flags:   []capabilities.FlagGrant{{Kind: "env", Value: "LANG", HasValue: true}},
		Timeout: capabilities.Duration(5e9),
	}
	declared := mustSet(`
read    = ["workspace/data"]
write   = ["workspace/out"]
env     = ["LANG", "TZ"]
timeout = "30s"
`)
	res, err := r.Resolve(capabilities.SkillRef{Name: "report", Folder: "report"}, declared)
	if err != nil {
		panic(err)
	}
	fmt.Println(capabilities.Describe(res.Effective))
	fmt.Println(res.Why())
	// Output:
	// read=workspace/data, env=LANG, timeout=5s
	// granted read=workspace/data, env=LANG, timeout=5s (by policy [default], --allow-env=LANG, --timeout=5s); not granted: write=workspace/out (add --allow-write=workspace/out)
}
