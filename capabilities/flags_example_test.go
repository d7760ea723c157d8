package capabilities_test

import (
	"fmt"

	"github.com/skillrun/skillrun/capabilities"
)

// `skillrun run csv-stats --allow-read --allow-env=LANG`: a flag with no
// value grants what the skill declares for that kind; with a value, only
// that part.
func ExampleGrantFromFlags() {
	declared := mustSet(`
read = ["skill", "workspace/data"]
env  = ["LANG", "TZ"]
net  = ["api.example.com"]
`)
	granted, err := capabilities.GrantFromFlags(declared, false, []capabilities.FlagGrant{
		{Kind: "read"},
		{Kind: "env", Value: "LANG", HasValue: true},
	})
	fmt.Println(capabilities.Describe(granted), err)

	// A value the skill never declared grants nothing, which is an error.
	_, err = capabilities.GrantFromFlags(declared, false, []capabilities.FlagGrant{
		{Kind: "read", Value: "workspace/x", HasValue: true},
	})
	fmt.Println(err)
	// Output:
	// read=skill,workspace/data, env=LANG <nil>
	// --allow-read=workspace/x grants nothing: the skill declares read = skill, workspace/data
}

func ExampleFlagFor() {
	fmt.Println(capabilities.FlagFor("read", "workspace"))
	fmt.Println(capabilities.FlagFor("env", ""))
	fmt.Println(capabilities.FlagFor("net", "*.example.org"))
	// Output:
	// --allow-read=workspace
	// --allow-env
	// '--allow-net=*.example.org'
}

func ExampleFlags() {
	fmt.Println(capabilities.Flags(mustSet(`
read    = ["workspace"]
env     = ["LANG", "TZ"]
timeout = "10s"
`)))
	// Output:
	// [--allow-read=workspace --allow-env=LANG,TZ]
}

func ExampleDescribe() {
	fmt.Println(capabilities.Describe(mustSet(`
read    = ["workspace"]
env     = ["LANG"]
timeout = "10s"
`)))
	fmt.Println(capabilities.Describe(capabilities.Set{}))
	// Output:
	// read=workspace, env=LANG, timeout=10s
	// nothing
}

func ExampleFlagGrant_String() {
	fmt.Println(capabilities.FlagGrant{Kind: "env", Value: "LANG,TZ", HasValue: true})
	// Output: --allow-env=LANG,TZ
}
