package yamlmod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillrun/skillrun/skills"
)

// The keys of each mapping of a tool.yaml.
var (
	toolKeys   = []string{"id", "version", "category", "actions", "constraints", "requires"}
	actionKeys = []string{"name", "description", "parameters", "returns"}
	paramKeys  = []string{"name", "type", "required", "default", "description"}
)

// paramTypes are the JSON Schema types a parameter may have.
var paramTypes = []string{"string", "number", "integer", "boolean", "object", "array"}

// scriptExts are the files an action may be, in the order looked for.
var scriptExts = []string{".py", ".js", ".sh", ".wasm"}

// actionPattern is an action's name: it is half a tool name.
var actionPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// loadTool reads and checks tools/<id>/tool.yaml; nil when it has an
// error.
func (l *loader) loadTool(id, rel string) *Tool {
	data, p := l.readModule(rel)
	if p == nil {
		return nil
	}
	defer func() { l.problems = append(l.problems, sorted(p.problems)...) }()
	f := p.document(data, "tool", toolKeys)
	if f == nil {
		return nil
	}
	t := &Tool{File: p.file}
	t.ID = p.id(f, id, "folder")
	if strings.Contains(t.ID, "__") {
		p.errf(f.lineOf("id"), "tool.id", "id %q holds \"__\", which separates a tool from its action in tool names", t.ID)
	}
	t.Version = p.version(f, "version")
	t.Category = p.str(f, "category")
	t.Constraints = strs(p.list(f, "constraints", maxList))
	t.Actions = p.actions(f, id)
	if len(t.Actions) == 0 && !p.reported("tool.actions") && !p.failed() {
		p.errf(f.lineOf("actions"), "tool.actions", "the tool has no actions: list them as actions: [{name, description, parameters}]")
	}
	requires := p.list(f, "requires", maxList)
	if p.failed() {
		return nil
	}
	dir, err := l.toolDir(id)
	if err != nil {
		p.errf(0, "", "%v", err)
		return nil
	}
	t.Dir = dir
	l.findScripts(p, t)
	if p.failed() {
		return nil
	}
	t.requires = l.checkRequires(p, requires)
	l.checkInterpreters(p, t)
	s, err := scriptSkill(t)
	if err != nil {
		p.errf(0, "", "cannot make the tool's folder runnable: %v", err)
		return nil
	}
	t.skill = s
	return t
}

// toolDir is the tool's folder: absolute, links resolved, and inside dir.
func (l *loader) toolDir(id string) (string, error) {
	abs, err := filepath.Abs(l.display(path.Join(ToolsFolder, id)))
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

func (p *parser) actions(f *fields, tool string) []*Action {
	var out []*Action
	seen := map[string]int{}
	keys := map[string]string{}
	for i, n := range p.mappings(f, "actions", maxList) {
		field := fmt.Sprintf("tool.actions[%d]", i)
		af := p.mapping(n, field, actionKeys)
		if af == nil {
			continue
		}
		a := &Action{Line: n.Line, tool: tool}
		a.Name = p.str(af, "name")
		p.need(af, "name", a.Name, "the action's name, which the tool name "+tool+"__<name> ends with")
		a.Description = p.str(af, "description")
		p.need(af, "description", a.Description, "say what the action does; it is what the model reads")
		a.Returns = p.returns(af)
		a.Parameters = p.params(af)
		if a.Name == "" {
			continue
		}
		line := af.lineOf("name")
		switch {
		case !actionPattern.MatchString(a.Name) || strings.Contains(a.Name, "__"):
			p.errf(line, field+".name", "action name %q: letters, digits, - and _, starting with a letter or digit, without \"__\"", a.Name)
			continue
		case len(a.ToolName()) > 128:
			p.errf(line, field+".name", "the tool name %s is over 128 bytes: shorten the action's name or the tool's id", a.ToolName())
			continue
		}
		if first, dup := seen[a.Name]; dup {
			p.errf(line, field+".name", "action %s again (first on line %d)", a.Name, first)
			continue
		}
		seen[a.Name] = line
		a.key = strings.ToLower(a.Name)
		if other, dup := keys[a.key]; dup {
			p.errf(line, field+".name", "actions %s and %s differ only in case: their scripts would be one", other, a.Name)
			continue
		}
		keys[a.key] = a.Name
		out = append(out, a)
	}
	return out
}

// returns reads an action's returns: text, or a mapping kept as JSON.
func (p *parser) returns(af *fields) string {
	v := af.vals["returns"]
	if v == nil {
		return ""
	}
	field := af.path("returns")
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
		return strings.TrimSpace(v.Value)
	case v.Kind == yaml.MappingNode:
		j, ok := p.toJSON(v, field)
		if !ok {
			return ""
		}
		b, _ := json.Marshal(j)
		return string(b)
	}
	p.errf(v.Line, field, "%s must be text or a mapping (a JSON-Schema-like description), not %s", field, describe(v))
	return ""
}

func (p *parser) params(af *fields) []Param {
	var out []Param
	seen := map[string]int{}
	for i, n := range p.mappings(af, "parameters", maxList) {
		field := fmt.Sprintf("%s[%d]", af.path("parameters"), i)
		pf := p.mapping(n, field, paramKeys)
		if pf == nil {
			continue
		}
		prm := Param{Name: p.str(pf, "name"), Type: p.str(pf, "type"), Required: p.boolean(pf, "required"),
			Description: p.str(pf, "description")}
		p.need(pf, "name", prm.Name, "the key of the input object it is")
		p.need(pf, "type", prm.Type, "one of "+strings.Join(paramTypes, ", "))
		switch {
		case prm.Name == "":
			continue
		case !validID(prm.Name):
			p.errf(pf.lineOf("name"), field+".name", "parameter name %q: letters, digits, - and _, at most %d", prm.Name, maxIDLen)
			continue
		case prm.Type != "" && !slices.Contains(paramTypes, prm.Type):
			p.errf(pf.lineOf("type"), field+".type", "parameter %s: type %q is not one of %s", prm.Name, prm.Type, strings.Join(paramTypes, ", "))
			continue
		}
		if first, dup := seen[prm.Name]; dup {
			p.errf(pf.lineOf("name"), field+".name", "parameter %s again (first on line %d)", prm.Name, first)
			continue
		}
		seen[prm.Name] = pf.lineOf("name")
		if d := pf.vals["default"]; d != nil && prm.Type != "" {
			prm.Default = p.defaultValue(d, field+".default", prm)
		}
		out = append(out, prm)
	}
	return out
}

// defaultValue checks a parameter's default against its type and
// returns its JSON.
func (p *parser) defaultValue(d *yaml.Node, field string, prm Param) json.RawMessage {
	v, ok := p.toJSON(d, field)
	if !ok {
		return nil
	}
	fits := false
	switch x := v.(type) {
	case string:
		fits = prm.Type == "string"
	case bool:
		fits = prm.Type == "boolean"
	case int64:
		fits = prm.Type == "integer" || prm.Type == "number"
	case float64:
		fits = prm.Type == "number" || prm.Type == "integer" && x == float64(int64(x))
	case map[string]any:
		fits = prm.Type == "object"
	case []any:
		fits = prm.Type == "array"
	}
	if !fits {
		what := describe(d)
		if d.Kind == yaml.ScalarNode {
			what = strconv.Quote(d.Value) + " (" + what + ")"
		}
		p.errf(d.Line, field, "parameter %s: the default %s is not of type %s", prm.Name, what, prm.Type)
		return nil
	}
	if prm.Required {
		p.warnf(d.Line, field, "parameter %s is required, so its default is never used", prm.Name)
	}
	b, _ := json.Marshal(v)
	return b
}

// WrapperFile implements every action of a tool that has no script of
// its own: a Python class with invoke(action, params), as the ADR's
// layout has it (wrapper_driver.py runs it).
const WrapperFile = "wrapper.py"

// findScripts finds the script of each action in the tool's folder:
// <action>.{py,js,sh,wasm} or scripts/<action>.{...}, exactly one, or
// else the folder's wrapper.py.
func (l *loader) findScripts(p *parser, t *Tool) {
	root, err := os.OpenRoot(t.Dir)
	if err != nil {
		p.errf(0, "", "%v", err)
		return
	}
	defer root.Close()
	switch fi, err := root.Stat(WrapperFile); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		p.errf(0, "", "%s: %v", WrapperFile, describeFSError(err))
	case !fi.Mode().IsRegular():
		p.errf(0, "", "%s is not a regular file", WrapperFile)
	default:
		t.wrapper = true
	}
	for i, a := range t.Actions {
		var found []string
		bad := false
		for _, dir := range []string{"", "scripts"} {
			for _, ext := range scriptExts {
				rel := path.Join(dir, a.Name+ext)
				fi, err := root.Stat(filepath.FromSlash(rel))
				switch {
				case errors.Is(err, fs.ErrNotExist):
				case err != nil:
					p.errf(a.Line, fmt.Sprintf("tool.actions[%d]", i), "action %s: %s: %v", a.Name, rel, describeFSError(err))
					bad = true
				case !fi.Mode().IsRegular():
					p.errf(a.Line, fmt.Sprintf("tool.actions[%d]", i), "action %s: %s is not a regular file", a.Name, rel)
					bad = true
				default:
					found = append(found, rel)
				}
			}
		}
		switch {
		case bad:
		case len(found) == 0 && t.wrapper:
			// The ADR's layout: one wrapper.py with invoke(action, params).
			a.Script, a.viaWrapper = WrapperFile, true
		case len(found) == 0:
			// Declared before it is written: the tool and what names it
			// load; the action is not served until its script is there.
			p.warnf(a.Line, fmt.Sprintf("tool.actions[%d]", i), "action %s has no implementation yet, so it is not served: add %s (or .py, .js, .wasm) to %s, or to its scripts/ folder, or a %s whose class implements invoke(action, params)",
				a.Name, a.Name+".sh", path.Join(ToolsFolder, t.ID), WrapperFile)
		case len(found) == 1:
			a.Script = found[0]
		default:
			p.errf(a.Line, fmt.Sprintf("tool.actions[%d]", i), "action %s has %d scripts (%s): keep one", a.Name, len(found), strings.Join(found, ", "))
		}
	}
}

// interpreterOf is the interpreter language a requires entry names, by
// its name without version: "" for none.
func interpreterOf(name string) string {
	switch {
	case name == "node" || name == "nodejs":
		return "js"
	case name == "bash" || name == "sh":
		return "sh"
	case name == "python" || strings.HasPrefix(name, "python3") && strings.Trim(name[len("python3"):], "0123456789.") == "":
		return "python"
	}
	return ""
}

// requireName splits a requires entry into its name and the version
// constraint after it ("python3 >= 3.10": "python3", ">= 3.10").
var requireName = regexp.MustCompile(`^([A-Za-z0-9._+-]*?)\s*([<>=!~^].*)?$`)

// interpreterWhat says what runs scripts of each language in the sandbox.
var interpreterWhat = map[string]string{
	"python": "skillrun's CPython for WASI runs it in the sandbox (the standard library and pure-Python packages; no native extensions, no network unless granted)",
	"js":     "skillrun's JavaScript interpreter runs it in the sandbox; it is not Node.js: no npm packages, and Node's built-in modules only as far as the interpreter provides them",
	"sh":     "skillrun's sandboxed shell (mvdan/sh with built-in commands such as jq, sort and wc) runs it; it is not GNU bash and starts no host programs",
}

// checkRequires checks the requires entries and warns of those not met.
func (l *loader) checkRequires(p *parser, requires []item) []Requirement {
	var out []Requirement
	for _, it := range requires {
		r := Requirement{Name: it.s}
		m := requireName.FindStringSubmatch(it.s)
		name, constraint := it.s, ""
		if m != nil {
			name, constraint = m[1], strings.TrimSpace(m[2])
		}
		if lang := interpreterOf(strings.ToLower(name)); lang != "" {
			if _, err := l.find(context.Background(), lang); err != nil {
				r.Reason = fmt.Sprintf("no interpreter for it is installed: %v", err)
			} else {
				r.Met, r.Reason = true, interpreterWhat[lang]
				if constraint != "" {
					r.Reason += fmt.Sprintf(" (the version constraint %q is not checked)", constraint)
				}
			}
		} else {
			r.Reason = "skillrun cannot provide it: an action runs in the WebAssembly sandbox with nothing but its interpreter (python3, node or sh) and what its grant allows"
		}
		if !r.Met {
			p.warnf(it.line, "tool.requires", "requires %q: %s", it.s, r.Reason)
		}
		out = append(out, r)
	}
	return out
}

// checkInterpreters warns of an action whose script's interpreter is
// not installed: it would fail when called.
func (l *loader) checkInterpreters(p *parser, t *Tool) {
	warned := map[string]bool{}
	for _, a := range t.Actions {
		lang := map[string]string{".py": "python", ".js": "js", ".sh": "sh"}[path.Ext(a.Script)]
		if lang == "" || warned[lang] {
			continue
		}
		if _, err := l.find(context.Background(), lang); err != nil {
			warned[lang] = true
			p.warnf(a.Line, "tool.actions", "action %s: %s cannot run here yet: %v", a.Name, a.Script, err)
		}
	}
}

// sorted orders one file's problems by line, keeping the order of those
// on one line.
func sorted(ps skills.Problems) skills.Problems {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	return ps
}
