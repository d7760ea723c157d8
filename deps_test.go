package skillrun_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/skillrun/skillrun"

// layers says which of the module's own packages each package may import:
// each layer only the layers below it (DESIGN.md "Layout and dependency
// direction"). A package is matched by its longest listed prefix.
var layers = map[string][]string{
	"cmd":                  {"*"},
	"internal/bench":       {"toolset", "agent", "host", "scripts", "sandbox", "skills", "capabilities", "audit", "internal"},
	"internal/skilltest":   {"toolset", "agent", "host", "scripts", "sandbox", "skills", "capabilities", "audit", "internal"},
	"agent":                {"host", "skills", "capabilities", "audit", "internal"}, // a loop over a registry: no scripts, no sandbox
	"toolset":              {"agent", "host", "scripts", "sandbox", "native", "skills", "capabilities", "audit", "internal"},
	"agent/providers":      {"agent", "internal"}, // HTTP providers implement agent.Provider
	"host/mcp":             {"scripts", "sandbox", "host", "skills", "capabilities", "audit", "internal"},
	"scripts":              {"sandbox", "native", "host", "skills", "capabilities", "audit", "internal"},
	"host":                 {"skills", "capabilities", "audit", "internal"},
	"skills":               {"capabilities", "internal"},
	"internal/mdskill":     {"skills", "capabilities", "internal"}, // the Markdown skill kinds' format
	"internal/mdskill/run": {"agent", "host", "scripts", "sandbox", "skills", "capabilities", "audit", "internal"},
	"internal/skillpkg":    {"skills", "capabilities", "internal"},                                        // skills from repositories, and their lock
	"internal/yamlmod":     {"scripts", "sandbox", "host", "skills", "capabilities", "audit", "internal"}, // YAML skill, tool and agent modules
	"capabilities":         {"internal"},
	// The native tier confines host processes, beside the sandbox core.
	"native":        {"internal"},
	"native/helper": {"native"}, // the helper's early init, for binaries to import
	// The sandbox core stands alone (issue 12): no skills, no grants, no
	// host; only the audit event types and the internal helpers below.
	"sandbox":          {"audit", "internal/abi", "internal/buildid", "internal/fsguard", "internal/safefile", "internal/units"},
	"audit":            {}, // the bottom: every layer speaks its one audit API
	"guest":            {"internal/abi"},
	"guest/interp":     {"guest", "internal/abi"}, // interpreter guests (GOOS=wasip1 commands) use the SDK
	"internal":         {"internal"},
	"internal/testkit": {"audit", "internal"}, // tests' shared guests and fixtures
	"examples":         {"guest", "internal/abi"},
	"":                 {"*"}, // the root package (docs and this test)
}

// forbidden lists imports (by prefix) a layer must never have, whatever
// the layering allows.
var forbidden = map[string][]string{
	// No production package imports testing, nor the tests' kit.
	"*":            {"testing", module + "/internal/testkit"},
	"guest":        {"net", "os/exec"},
	"guest/interp": {"net", "os/exec"},
	"sandbox":      {"net/http"}, // HTTP for guests is a host function behind the net capability
}

// exempt lifts a "*" rule for one layer: the tests' kit is imported by
// test files only, and is made of testing helpers.
var exempt = map[string][]string{
	"internal/testkit": {"testing", module + "/internal/testkit"},
}

// wazeroOnly are dependencies only the sandbox core may import.
var wazeroOnly = []string{"github.com/tetratelabs/wazero", "github.com/extism/go-sdk"}

func TestDeps(t *testing.T) {
	imports := map[string]map[string]bool{} // package dir -> imports
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		if dir == "." {
			dir = ""
		}
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			v, _ := strconv.Unquote(imp.Path.Value)
			imports[dir][v] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 2 {
		t.Fatalf("found only %d packages; is the test running at the module root?", len(imports))
	}
	// Every rule is for a package that exists: a rule for a package
	// removed or renamed would guard nothing and mislead.
	for l := range layers {
		found := false
		for d := range imports {
			if l == "" && d == "" || l != "" && hasPathPrefix(d, l) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("layers has a rule for %q, but there is no such package; remove it", l)
		}
	}
	dirs := make([]string, 0, len(imports))
	for d := range imports {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		layer := layerOf(dir)
		for imp := range imports[dir] {
			if msg := violation(dir, layer, imp); msg != "" {
				t.Errorf("%s imports %s: %s", path.Join(module, dir), imp, msg)
			}
		}
	}
}

func layerOf(dir string) string {
	best := ""
	for l := range layers {
		if l != "" && (dir == l || strings.HasPrefix(dir, l+"/")) && len(l) > len(best) {
			best = l
		}
	}
	return best
}

func hasPathPrefix(s, prefix string) bool {
	return s == prefix || strings.HasPrefix(s, prefix+"/")
}

func violation(dir, layer, imp string) string {
	for _, l := range []string{"*", layer} {
		for _, f := range forbidden[l] {
			if hasPathPrefix(imp, f) && !(l == "*" && slices.Contains(exempt[layer], f)) {
				return "forbidden in this layer"
			}
		}
	}
	for _, w := range wazeroOnly {
		if hasPathPrefix(imp, w) && layer != "sandbox" {
			return "only package sandbox may import the Wasm engines"
		}
	}
	if !hasPathPrefix(imp, module) {
		return ""
	}
	target := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
	if target == dir {
		return ""
	}
	for _, allowed := range layers[layer] {
		if allowed == "*" || hasPathPrefix(target, allowed) {
			// A layer may not reach up into a package that lists it as
			// allowed below; "host" allows "host/mcp" only for host/mcp.
			if allowed == "host" && hasPathPrefix(target, "host/mcp") && layer != "host/mcp" && layer != "toolset" && layer != "internal/bench" && layer != "cmd" {
				return "host/mcp is above this layer"
			}
			return ""
		}
	}
	return "layer " + strconv.Quote(layer) + " may only import " + strings.Join(layers[layer], ", ")
}

// TestDepsPolicy checks the checker: each rule must reject what it says.
func TestDepsPolicy(t *testing.T) {
	cases := []struct {
		dir, imp string
		ok       bool
	}{
		{"skills", module + "/capabilities", true},
		{"sandbox", module + "/audit", true},
		{"sandbox", module + "/internal/abi", true},
		{"sandbox", module + "/capabilities", false},
		{"sandbox", module + "/skills", false},
		{"sandbox", module + "/host", false},
		{"sandbox", module + "/scripts", false},
		{"sandbox", module + "/internal/interp", false},
		{"scripts", module + "/sandbox", true},
		{"scripts", module + "/host", true},
		{"scripts", module + "/agent", false},
		{"scripts", "github.com/tetratelabs/wazero", false},
		{"audit", module + "/capabilities", false},
		{"audit", module + "/internal/abi", false},
		{"capabilities", module + "/skills", false},
		{"host", module + "/scripts", false},
		{"host", module + "/sandbox", false},
		{"host", module + "/host/mcp", false},
		{"agent", module + "/host/mcp", false},
		{"agent", module + "/scripts", false}, // a loop over a registry: package toolset runs the scripts
		{"agent", module + "/sandbox", false},
		{"agent", module + "/toolset", false},
		{"toolset", module + "/host/mcp", true},
		{"toolset", module + "/agent", true},
		{"internal/bench", module + "/toolset", true},
		{"skills", "github.com/tetratelabs/wazero", false},
		{"sandbox", "github.com/tetratelabs/wazero/api", true},
		{"sandbox", "net/http", false},
		{"guest", "net", false},
		{"guest", module + "/internal/abi", true},
		{"guest", module + "/skills", false},
		{"skills", "testing", false},
		{"skills", module + "/internal/testkit", false},
		{"internal/testkit", "testing", true},
		{"internal/testkit", module + "/audit", true},
		{"internal/testkit", module + "/scripts", false},
		{"cmd/skillrun", module + "/agent", true},
		{"guest/interp/js", module + "/guest", true},
		{"guest/interp/js", module + "/sandbox", false},
		{"guest/interp/js", "os/exec", false},
		{"agent/providers", module + "/agent", true},
		{"agent/providers", module + "/sandbox", false},
		{"agent", module + "/agent/providers", false},
	}
	for _, c := range cases {
		got := violation(c.dir, layerOf(c.dir), c.imp) == ""
		if got != c.ok {
			t.Errorf("%s importing %s: allowed=%v, want %v", c.dir, c.imp, got, c.ok)
		}
	}
}
