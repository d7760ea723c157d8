package skillpkg_test

import (
	"fmt"

	"github.com/skillrun/skillrun/internal/skillpkg"
)

// ParseSource reads what a user types after `skillrun add`: the @ref of
// an ssh-style URL comes after the path, never the user name's @.
func ExampleParseSource() {
	for _, arg := range []string{"anthropics/skills@v1.0", "git@github.com:acme/skills.git@main"} {
		src, err := skillpkg.ParseSource(arg)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s %s ref=%q\n", src.Type, src.URL, src.Ref)
	}
	// Output:
	// github https://github.com/anthropics/skills.git ref="v1.0"
	// git git@github.com:acme/skills.git ref="main"
}
