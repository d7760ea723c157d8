// Command hello is the Go test guest of package build.
package main

import "fmt"

func main() { fmt.Println("hello from Go") }
