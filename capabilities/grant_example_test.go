package capabilities_test

import (
	"fmt"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/capabilities"
)

// mustSet decodes a [capabilities] table, for short examples.
func mustSet(src string) capabilities.Set {
	var s capabilities.Set
	if _, err := toml.Decode(src, &s); err != nil {
		panic(err)
	}
	return s
}

// A script gets what its skill declares and the operator grants: the
// narrower of each overlapping pair, and the smaller of each limit.
func ExampleEffective() {
	declared := mustSet(`
read    = ["skill", "workspace"]
env     = ["LANG", "TZ"]
net     = ["*.example.org", "api.example.com"]
timeout = "10s"
`)
	granted := mustSet(`
read    = ["workspace/data"]
env     = ["LANG", "HOME"]
net     = ["api.example.org:443", "*:443"]
timeout = "30s"
memory  = "64MiB"
`)
	fmt.Println(capabilities.Describe(capabilities.Effective(declared, granted)))
	// Output:
	// read=workspace/data, env=LANG, net=*.example.org:443,api.example.com:443, memory=64MiB, timeout=10s
}

// A script's own declaration extends its skill's.
func ExampleMerge() {
	skill := mustSet(`
read    = ["skill"]
timeout = "10s"
`)
	script := mustSet(`
read    = ["workspace/data"]
env     = ["LANG"]
timeout = "1m"
`)
	fmt.Println(capabilities.Describe(capabilities.Merge(skill, script)))
	// Output:
	// read=skill,workspace/data, env=LANG, timeout=1m0s
}

// Missing says which declared kinds the operator granted nothing of, and
// Flags turns that into the flags to suggest.
func ExampleMissing() {
	declared := mustSet(`
read = ["workspace"]
env  = ["LANG", "TZ"]
net  = ["api.example.com"]
`)
	granted := mustSet(`env = ["TZ"]`)
	missing := capabilities.Missing(declared, granted)
	fmt.Println(capabilities.Describe(missing))
	fmt.Println(capabilities.Flags(missing))
	// Output:
	// read=workspace, net=api.example.com
	// [--allow-read=workspace --allow-net=api.example.com]
}

func ExampleHostPattern_Covers() {
	wild, _ := capabilities.ParseHostPattern("*.example.org")
	for _, s := range []string{"api.example.org:443", "*.a.example.org", "example.org", "*"} {
		p, _ := capabilities.ParseHostPattern(s)
		fmt.Println(s, wild.Covers(p))
	}
	// Output:
	// api.example.org:443 true
	// *.a.example.org true
	// example.org false
	// * false
}
