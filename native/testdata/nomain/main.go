// Command nomain runs a program under the native tier without calling
// native.Main: Run must refuse, not run this main as its helper.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/skillrun/skillrun/native"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Println("MAIN RAN AS HELPER")
		os.Exit(0)
	}
	_, err := native.Run(context.Background(), &native.Spec{Path: "/bin/true", Args: []string{"true"}, Dir: "/"})
	fmt.Println(err)
}
