package capabilities_test

import (
	"fmt"

	"github.com/skillrun/skillrun/capabilities"
)

func ExampleParsePolicy() {
	const policy = `
# grants for every skill
[default]
read    = ["workspace"]
timeout = "30s"

# grants for one skill, by name
[skills."csv-stats"]
read  = ["workspace/data"]
write = ["workspace/out"]
`
	p, err := capabilities.ParsePolicy([]byte(policy), "policy.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(capabilities.Describe(p.For("pdf-extract")))
	fmt.Println(capabilities.Describe(p.For("csv-stats")))

	// A misspelt key is an error, never silently ignored.
	_, err = capabilities.ParsePolicy([]byte("[default]\nreed = [\"workspace\"]\n"), "policy.toml")
	fmt.Println(err)
	// Output:
	// read=workspace, timeout=30s
	// read=workspace/data, write=workspace/out, timeout=30s
	// policy.toml:2: unknown key "default.reed" (did you mean "read"?); the keys are read, write, env, net, tools, mcp, skills, memory, timeout, output
}

// What a script finally gets is what the policy grants its skill,
// intersected with what the script declares.
func ExamplePolicy_For() {
	p, _ := capabilities.ParsePolicy([]byte(`
[default]
read = ["workspace"]
env  = ["LANG"]

[skills.untrusted]
env = []   # withdraw the default env grant from this skill
`), "policy.toml")
	declared := mustSet(`
read = ["workspace/data"]
env  = ["LANG"]
`)
	for _, skill := range []string{"csv-stats", "untrusted"} {
		fmt.Printf("%s: %s\n", skill, capabilities.Describe(capabilities.Effective(declared, p.For(skill))))
	}
	// Output:
	// csv-stats: read=workspace/data, env=LANG
	// untrusted: read=workspace/data
}

func ExampleLoadPolicy() {
	p, err := capabilities.LoadPolicy("testdata/policy/valid.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(capabilities.Describe(p.For("csv-stats")))
	// Output:
	// read=workspace/data, write=workspace/out, env=LANG,TZ, memory=64MiB, timeout=30s
}
