package mcp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"testing/fstest"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillrun/skillrun/host/mcp"
	"github.com/skillrun/skillrun/skills"
)

// serverExampleSkill loads a small skill from memory.
func serverExampleSkill(name string) *skills.Skill {
	s, err := skills.LoadFS(fstest.MapFS{
		name + "/SKILL.md":            {Data: []byte("---\nname: " + name + "\ndescription: Explains " + name + ".\n---\nRead references/guide.md.\n")},
		name + "/references/guide.md": {Data: []byte("# Guide to " + name + "\n")},
	}, name, nil)
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// This example serves a skill over stdio (here a pair of pipes) and uses
// it from an MCP client.
func ExampleNewServer() {
	srv := mcp.NewServer([]*skills.Skill{serverExampleSkill("pdf")}, &mcp.ServerOptions{Name: "example"})

	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx := context.Background()
	go srv.ServeStdio(ctx, serverIn, serverOut) //nolint:errcheck // ends when the client closes

	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "client", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println("tool:", t.Name)
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skill_activate", Arguments: map[string]any{"name": "pdf"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content[0].(*mcpsdk.TextContent).Text)
	r, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "skill://pdf/references/guide.md"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(r.Contents[0].MIMEType, ": ", r.Contents[0].Text)
	// Output:
	// tool: skill_activate
	// tool: skill_read
	// tool: skill_search
	// tool: skills_catalog
	// Read references/guide.md.
	//
	// Files of skill pdf (read them with skill_read or as resources skill://pdf/<path>):
	// - SKILL.md
	// - references/guide.md
	// text/markdown: # Guide to pdf
}

// This example serves skills over streamable HTTP. Only requests naming
// an allowed host get through: here the defaults, localhost, 127.0.0.1
// and [::1].
func ExampleServer_Handler() {
	srv := mcp.NewServer([]*skills.Skill{serverExampleSkill("pdf")}, nil)
	ts := httptest.NewServer(srv.Handler(nil)) // in a program: http.ListenAndServe("127.0.0.1:8080", ...)
	defer ts.Close()

	ctx := context.Background()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "client", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "skills_catalog"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcpsdk.TextContent).Text)
	// Output:
	// <available_skills>
	// <skill>
	// <name>
	// pdf
	// </name>
	// <description>
	// Explains pdf.
	// </description>
	// <location>
	// pdf/SKILL.md
	// </location>
	// </skill>
	// </available_skills>
}

// This example replaces the skills a running server offers; connected
// clients are told the tool and resource lists changed.
func ExampleServer_SetSkills() {
	srv := mcp.NewServer([]*skills.Skill{serverExampleSkill("pdf")}, nil)
	changed := make(chan string, 2)
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "client", Version: "v1"}, &mcpsdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcpsdk.ResourceListChangedRequest) { changed <- "resources changed" },
	})
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx := context.Background()
	go srv.ServeStdio(ctx, serverIn, serverOut) //nolint:errcheck // ends when the client closes
	cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	// A first request: the server has handled the client's "initialized"
	// notification by its answer (stdio is in order), so the session is
	// one the change is announced to. Without it the announcement could
	// go out before the session counts, and the example wait forever.
	if _, err := cs.ListResources(ctx, nil); err != nil {
		log.Fatal(err)
	}

	srv.SetSkills([]*skills.Skill{serverExampleSkill("docx")})
	select {
	case msg := <-changed:
		fmt.Println(msg)
	case <-time.After(30 * time.Second):
		fmt.Println("no list_changed notification")
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Resources {
		fmt.Println(r.URI)
	}
	// Output:
	// resources changed
	// skill://docx/SKILL.md
	// skill://docx/references/guide.md
}
