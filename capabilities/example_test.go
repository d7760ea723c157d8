package capabilities_test

import (
	"errors"
	"fmt"

	"github.com/BurntSushi/toml"

	"github.com/skillrun/skillrun/capabilities"
)

// A skill declares its capabilities in skill.toml; decoding checks each
// value and Validate checks the lists.
func ExampleSet() {
	const declared = `
read    = ["skill", "workspace/data"]
env     = ["LANG"]
net     = ["*.example.org:443"]
memory  = "64MiB"
timeout = "10s"
`
	var s capabilities.Set
	if _, err := toml.Decode(declared, &s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Read, s.Net, s.Memory, s.Timeout, s.Validate())
	// Output:
	// [skill workspace/data] [*.example.org:443] 64MiB 10s <nil>
}

func ExampleSet_Validate() {
	s := capabilities.Set{
		Env: []string{"LANG", "1BAD", "LANG"},
		MCP: []string{"github"},
	}
	err := s.Validate()
	fmt.Println(err)

	// Each problem is a *KeyError naming the skill.toml key.
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if ke, ok := errors.AsType[*capabilities.KeyError](e); ok {
			fmt.Println("key:", ke.Key)
		}
	}
	// Output:
	// env: "1BAD" is not a valid environment variable name (letters, digits and _, not starting with a digit)
	// env: "LANG" is listed more than once
	// mcp: "github" is not a valid MCP pattern; write "server/tool" or "server/*"
	// key: env
	// key: env
	// key: mcp
}

func ExampleSet_IsZero() {
	fmt.Println(capabilities.Set{}.IsZero())
	fmt.Println(capabilities.Set{Env: []string{"LANG"}}.IsZero())
	// Output:
	// true
	// false
}

func ExampleParsePath() {
	p, err := capabilities.ParsePath("workspace/data/")
	fmt.Println(p, p.GuestPath(), err)

	_, err = capabilities.ParsePath("workspace/../etc")
	fmt.Println(err)
	// Output:
	// workspace/data /workspace/data <nil>
	// invalid path "workspace/../etc": ".." segments are not allowed
}

func ExamplePath_Contains() {
	data, _ := capabilities.ParsePath("workspace/data")
	for _, s := range []string{"workspace/data/in.csv", "workspace/database", "workspace"} {
		other, _ := capabilities.ParsePath(s)
		fmt.Println(s, data.Contains(other))
	}
	// Output:
	// workspace/data/in.csv true
	// workspace/database false
	// workspace false
}

func ExampleRoot_GuestPath() {
	fmt.Println(capabilities.RootSkill.GuestPath(), capabilities.RootWorkspace.GuestPath())
	// Output: /skill /workspace
}

func ExampleParseHostPattern() {
	for _, s := range []string{"API.example.com:8443", "*.example.org", "[::1]:443", "*", "https://example.com"} {
		p, err := capabilities.ParseHostPattern(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s -> %#v\n", s, p)
	}
	// Output:
	// API.example.com:8443 -> capabilities.HostPattern{Host:"api.example.com", Port:8443, Wildcard:false}
	// *.example.org -> capabilities.HostPattern{Host:"example.org", Port:0, Wildcard:true}
	// [::1]:443 -> capabilities.HostPattern{Host:"::1", Port:443, Wildcard:false}
	// * -> capabilities.HostPattern{Host:"", Port:0, Wildcard:true}
	// invalid host pattern "https://example.com": a URL is not a host pattern; drop the scheme and any path, write host[:port], such as "api.example.com", "*.example.org:443" or "[::1]:8080"
}

func ExampleHostPattern_Match() {
	p, _ := capabilities.ParseHostPattern("*.example.org:443")
	fmt.Println(p.Match("a.example.org", 443))
	fmt.Println(p.Match("a.b.example.org", 443))
	fmt.Println(p.Match("example.org", 443))
	fmt.Println(p.Match("a.example.org", 80))
	// Output:
	// true
	// true
	// false
	// false
}

func ExampleParseSize() {
	for _, s := range []string{"64MiB", "10MB", "1536 KiB", "1024", "1.5MiB", "0"} {
		size, err := capabilities.ParseSize(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s, "=", int64(size), "bytes =", size)
	}
	// Output:
	// 64MiB = 67108864 bytes = 64MiB
	// 10MB = 10000000 bytes = 10000000B
	// 1536 KiB = 1572864 bytes = 1536KiB
	// 1024 = 1024 bytes = 1KiB
	// invalid size "1.5MiB": must be a whole number; use a smaller unit instead of a fraction, such as "1536KiB"
	// invalid size "0": must be positive
}

func ExampleParseDuration() {
	d, err := capabilities.ParseDuration("90s")
	fmt.Println(d, err)
	_, err = capabilities.ParseDuration("48h")
	fmt.Println(err)
	// Output:
	// 1m30s <nil>
	// invalid duration "48h": 48h0m0s is longer than the limit of 24h0m0s
}
