package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/testkit"
)

// TestSameSkillsEveryVerb runs one folder holding an Agent Skill, Markdown
// skills (.AchillesSkills) and YAML skill, tool and agent modules through
// catalog, search, show and mcp: each lists the same skills, and mcp
// serves the script, the Markdown skills and the YAML actions (package
// toolset's TestSameTools checks a session's tools are a server's).
func TestSameSkillsEveryVerb(t *testing.T) {
	dir := testkit.MixedFolder(t, "../../examples")
	want := []string{"py-csv-report", "text-report"}

	var out bytes.Buffer
	require.Equal(t, 0, run([]string{"catalog", "--json", dir}, strings.NewReader(""), &out, io.Discard))
	var cat []struct{ Name string }
	require.NoError(t, json.Unmarshal(out.Bytes(), &cat), out.String())
	var listed []string
	for _, c := range cat {
		listed = append(listed, c.Name)
	}
	slices.Sort(listed)
	assert.Equal(t, want, listed, "catalog")

	for _, name := range want {
		out.Reset()
		assert.Equal(t, 0, run([]string{"search", strings.ReplaceAll(name, "-", " "), dir}, strings.NewReader(""), &out, io.Discard), "search %s", name)
		assert.Contains(t, out.String(), name, "search")
		out.Reset()
		folder := filepath.Join(dir, name)
		if name == "text-report" {
			folder = filepath.Join(dir, "skills", name) // a YAML skill module's folder
		}
		assert.Equal(t, 0, run([]string{"show", folder}, strings.NewReader(""), &out, io.Discard), "show %s", name)
		assert.NotEmpty(t, out.String(), "show %s", name)
	}

	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", dir, "--workspace", t.TempDir()}, serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := connectStdio(ctx, t, clientIn, clientOut)
	defer func() { cs.Close(); clientOut.Close(); <-done }()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skills_catalog"})
	require.NoError(t, err)
	for _, name := range want {
		assert.Contains(t, textOf(res), "<name>\n"+name+"\n</name>", "mcp's catalog")
	}
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var served []string
	for _, tl := range tools.Tools {
		served = append(served, tl.Name)
	}
	for _, name := range []string{"py-csv-report__report", "text-tools__count_words"} {
		assert.Contains(t, served, name)
	}
	assert.True(t, slices.ContainsFunc(served, func(n string) bool {
		return strings.HasPrefix(n, "skill_") && n != "skill_activate" && n != "skill_read" && n != "skill_search"
	}),
		"a Markdown skill is served: %v", served)
}
