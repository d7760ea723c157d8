package scaffold_test

import (
	"fmt"
	"os"

	"github.com/skillrun/skillrun/internal/scaffold"
)

// A new Go skill: its files, then the folder they are written as.
func ExampleFiles() {
	files, err := scaffold.Files("count-words", "go")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(f.Mode, f.Path)
	}
	parent, _ := os.MkdirTemp("", "scaffold-example-")
	defer os.RemoveAll(parent)
	if _, err := scaffold.Create(parent, "count-words", files); err != nil {
		fmt.Println(err)
	}
	_, err = scaffold.Create(parent, "count-words", files)
	fmt.Println(err != nil)
	// Output:
	// -rw-r--r-- SKILL.md
	// -rw-r--r-- skill.toml
	// -rw-r--r-- src/go.mod
	// -rw-r--r-- src/main.go
	// -rw-r--r-- tests/count.txtar
	// true
}
