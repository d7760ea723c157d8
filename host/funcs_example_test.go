package host_test

import (
	"context"
	"fmt"
	"os"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
)

func ExampleEnv_Dispatch() {
	env := &host.Env{
		Skill: "csv-stats", Script: "stats",
		Granted: capabilities.Set{Tools: []string{"workspace_read"}},
		Input:   []byte(`{"file":"in.csv"}`),
		Output:  os.Stdout,
	}
	ctx := context.Background()
	fmt.Printf("%s\n", env.Dispatch(ctx, "input", nil))
	fmt.Printf("\n%s\n", env.Dispatch(ctx, "output", []byte("hello")))
	fmt.Printf("%s\n", env.Dispatch(ctx, "tool_call", []byte(`{"name":"web_search"}`)))
	// Output:
	// {"ok":true,"result":{"file":"in.csv"}}
	// hello
	// {"ok":true,"result":{"written":5}}
	// {"ok":false,"error":{"code":"denied","message":"csv-stats:stats: tools web_search denied: not granted (add --allow-tools=web_search)"}}
}
