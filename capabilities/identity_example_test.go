package capabilities_test

import (
	"fmt"

	"github.com/skillrun/skillrun/capabilities"
)

// A table by name goes to the skill in the folder of that name, alone
// with it; a skill elsewhere claiming the name gets only the default.
func ExamplePolicy_Grant() {
	p, _ := capabilities.ParsePolicy([]byte(`
[default]
read = ["workspace"]
[skills.deploy]
env = ["API_TOKEN"]
`), "/home/me/policy.toml")
	for _, ref := range []capabilities.SkillRef{
		{Name: "deploy", Path: "/home/me/.agents/skills/deploy", Folder: "deploy"},
		{Name: "deploy", Path: "/src/repo/.agents/skills/zz-helper", Folder: "zz-helper"},
	} {
		g, err := p.Grant(ref)
		fmt.Println(capabilities.Describe(g))
		if err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// read=workspace, env=API_TOKEN
	// read=workspace
	// policy grant not applied: policy [skills."deploy"] is not given to the skill at "/src/repo/.agents/skills/zz-helper": its folder is named "zz-helper", not "deploy"; to grant it, add path = "/src/repo/.agents/skills/zz-helper" to the table
}
