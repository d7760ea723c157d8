package scripts_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/sandbox"
	"github.com/skillrun/skillrun/scripts"
	"github.com/skillrun/skillrun/skills"
)

// An embedding program loads a skill and runs one of its scripts with a
// grant; the script gets what the skill declares ∩ what is granted.
func ExampleRunner_RunScript() {
	dir := exampleSkill() // a skill folder: SKILL.md, skill.toml, scripts/hello.wasm
	defer os.RemoveAll(filepath.Dir(dir))
	ctx := context.Background()

	s, err := skills.LoadDir(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	// Grant as `skillrun run --allow-read=workspace` would: the same
	// resolver, so the same answer.
	grants := &capabilities.Resolver{
		Flags: []capabilities.FlagGrant{{Kind: "read", Value: "workspace", HasValue: true}},
	}
	grant, err := scripts.Resolve(s, "hello", grants)
	if err != nil {
		log.Fatal(err)
	}

	r, err := scripts.New(ctx, &scripts.Options{Sandbox: &sandbox.Options{NoCache: true}})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close(ctx)
	res, err := r.RunScript(ctx, s, "hello", &scripts.ScriptRun{
		Services: host.Services{Workspace: os.TempDir()},
		Stdout:   os.Stdout,
		Granted:  grant.Granted, // the script gets grant.Effective
	})
	fmt.Println(res.ExitCode, err)
	// Output:
	// hello, world
	// 0 <nil>
}

func exampleSkill() string {
	base, err := os.MkdirTemp("", "skills")
	if err != nil {
		log.Fatal(err)
	}
	dir := filepath.Join(base, "hello")
	files := map[string][]byte{
		"SKILL.md":           []byte("---\nname: hello\ndescription: Say hello.\n---\nRun the hello script.\n"),
		"skill.toml":         []byte("version = 1\n[capabilities]\nread = [\"workspace\"]\ntimeout = \"5s\"\n[scripts.hello]\nmodule = \"scripts/hello.wasm\"\n"),
		"scripts/hello.wasm": testkit.HelloWasm,
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return dir
}
