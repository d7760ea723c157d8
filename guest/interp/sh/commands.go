package main

import (
	"io"
	"maps"
	"sync"

	"github.com/skillrun/skillrun/guest/interp/sh/internal/awk"
	"github.com/skillrun/skillrun/guest/interp/sh/internal/filecmd"
	"github.com/skillrun/skillrun/guest/interp/sh/internal/proc"
	"github.com/skillrun/skillrun/guest/interp/sh/internal/textcmd"
)

var (
	commandsOnce sync.Once
	commandTable map[string]proc.Command
)

// commands are the shell's built-in commands by name: the text and file
// commands, awk, jq, the shell itself and the interpreters. (echo,
// printf, test, read, cd and the other bash builtins are the
// interpreter's own.)
func builtinCommands() map[string]proc.Command {
	commandsOnce.Do(func() {
		t := map[string]proc.Command{}
		maps.Copy(t, textcmd.Commands)
		maps.Copy(t, filecmd.Commands)
		t["awk"] = awk.Main
		t["jq"] = jq
		t["which"] = which
		t[statusCommand] = statusCmd
		commandTable = t
	})
	return commandTable
}

// nested are the commands that run inside the shell's own state:
// sh/bash (another interpreter) and python/node (another sandbox run).
func (sh *shell) nested(name string) (proc.Command, bool) {
	switch name {
	case "sh", "bash":
		return sh.shCommand, true
	case "python", "python3", "python3.11", "node", "nodejs":
		return sh.interpreterCommand, true
	}
	return nil, false
}

// byName finds the command name.
func (sh *shell) byName(name string) (proc.Command, bool) {
	if c, ok := sh.nested(name); ok {
		return c, true
	}
	c, ok := builtinCommands()[name]
	return c, ok
}

// which prints where each named command is: built-ins live in /usr/bin
// as far as scripts can tell.
func which(e *proc.Env, args []string) int {
	code := 0
	for _, a := range args[1:] {
		if len(a) > 0 && a[0] == '-' {
			continue
		}
		if isCommand(a) {
			_, _ = io.WriteString(e.Stdout, "/usr/bin/"+a+"\n")
		} else {
			code = 1
		}
	}
	return code
}

// isCommand reports whether name is a command of the shell.
func isCommand(name string) bool {
	_, ok := (&shell{}).byName(name)
	return ok
}
