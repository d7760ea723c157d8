package capabilities_test

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillrun/skillrun/capabilities"
)

// The runtime checks every use against the effective set; a denial names
// the flag that would allow it.
func ExampleSet_CheckNet() {
	eff := mustSet(`net = ["*.example.org:443"]`)
	fmt.Println(eff.CheckNet("api.example.org", 443))
	err := eff.CheckNet("api.example.com", 443)
	fmt.Println(err)
	fmt.Println(errors.Is(err, capabilities.ErrDenied), errors.Is(err, fs.ErrPermission))
	// Output:
	// <nil>
	// net api.example.com:443 denied: not granted (add --allow-net=api.example.com)
	// true true
}

// Writing implies reading: a writable directory is readable too.
func ExampleSet_CheckRead() {
	eff := mustSet(`
read  = ["workspace/data"]
write = ["workspace/out"]
`)
	for _, s := range []string{"workspace/data/in.csv", "workspace/out/report.md", "workspace/database"} {
		p, _ := capabilities.ParsePath(s)
		fmt.Println(s, eff.CheckRead(p))
	}
	// Output:
	// workspace/data/in.csv <nil>
	// workspace/out/report.md <nil>
	// workspace/database read workspace/database denied: not granted (add --allow-read=workspace/database)
}

func ExampleSet_CheckWrite() {
	eff := mustSet(`read = ["workspace"]`)
	p, _ := capabilities.ParsePath("workspace/out.txt")
	fmt.Println(eff.CheckWrite(p))
	// Output:
	// write workspace/out.txt denied: not granted (add --allow-write=workspace/out.txt)
}

func ExampleSet_CheckEnv() {
	eff := mustSet(`env = ["LANG"]`)
	fmt.Println(eff.CheckEnv("LANG"))
	fmt.Println(eff.CheckEnv("AWS_SECRET_ACCESS_KEY"))
	// Output:
	// <nil>
	// env AWS_SECRET_ACCESS_KEY denied: not granted (add --allow-env=AWS_SECRET_ACCESS_KEY)
}

func ExampleSet_CheckTool() {
	eff := mustSet(`tools = ["workspace_read"]`)
	fmt.Println(eff.CheckTool("shell"))
	// Output:
	// tools shell denied: not granted (add --allow-tools=shell)
}

func ExampleSet_CheckMCP() {
	eff := mustSet(`mcp = ["github/*"]`)
	fmt.Println(eff.CheckMCP("github", "create_issue"))
	fmt.Println(eff.CheckMCP("slack", "post_message"))
	// Output:
	// <nil>
	// mcp slack/post_message denied: not granted (add --allow-mcp=slack/post_message)
}

func ExampleSet_CheckSkill() {
	eff := mustSet(`skills = ["pdf-extract"]`)
	fmt.Println(eff.CheckSkill("pdf-extract"))
	// Output:
	// <nil>
}

// The runtime fills in which script was denied, and whether the skill
// declared the use at all (then no flag can help).
func ExampleDeniedError() {
	declared := mustSet(`net = ["api.example.com"]`)
	effective := capabilities.Set{} // the operator granted nothing

	for _, host := range []string{"api.example.com", "evil.example.net"} {
		err := effective.CheckNet(host, 443)
		if de, ok := errors.AsType[*capabilities.DeniedError](err); ok {
			de.Skill, de.Script = "csv-stats", "stats"
			de.Undeclared = declared.CheckNet(host, 443) != nil
		}
		fmt.Println(err)
	}
	// Output:
	// csv-stats:stats: net api.example.com:443 denied: not granted (add --allow-net=api.example.com)
	// csv-stats:stats: net evil.example.net:443 denied: the skill does not declare it (its skill.toml would need net = ["evil.example.net"])
}
