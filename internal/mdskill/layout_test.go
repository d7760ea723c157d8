package mdskill

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/skills"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// A layoutReport is what a fixture tree yields: its listing, the skills
// parsed with their tools' input schemas, and every problem.
type layoutReport struct {
	Files       []string                   `json:"files"`
	AgentSkills []string                   `json:"agent_skills"`
	Skills      []*Skill                   `json:"skills"`
	Schemas     map[string]json.RawMessage `json:"schemas"`
	Problems    []string                   `json:"problems"`
}

func report(t *testing.T, dir string) *layoutReport {
	t.Helper()
	l, err := List(dir)
	require.NoError(t, err)
	list, problems := l.Load()
	r := &layoutReport{Files: l.Files, AgentSkills: l.AgentSkills, Skills: list, Schemas: map[string]json.RawMessage{},
		Problems: []string{}}
	for _, s := range list {
		r.Schemas[s.ToolName()] = s.InputSchema()
	}
	for _, p := range problems {
		r.Problems = append(r.Problems, p.Error())
	}
	return r
}

// TestGoldenLayouts: each fixture tree (the flat layout, the folder
// layout, a name taken twice, broken skills) lists, parses and reports
// exactly as its golden file says. go test -run TestGoldenLayouts
// -update rewrites the golden files.
func TestGoldenLayouts(t *testing.T) {
	for _, name := range []string{"flat", "folders", "dup", "bad"} {
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(report(t, filepath.Join("testdata", name)), "", "  ")
			require.NoError(t, err)
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				require.NoError(t, os.WriteFile(golden, append(got, '\n'), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got)+"\n")
		})
	}
}

// TestFlatLayoutStillWorks: the flat layout loads as before, its list
// fields and steps unchanged.
func TestFlatLayoutStillWorks(t *testing.T) {
	list, problems := LoadDir("testdata/flat")
	require.Empty(t, problems)
	require.Len(t, list, 3)
	byName := map[string]*Skill{}
	for _, s := range list {
		byName[s.Name] = s
		assert.Empty(t, s.Dir, "a flat skill has no folder")
	}
	assert.Equal(t, []Param{{Name: "title", Type: "string", Required: true, Description: "What to do.", Line: 6},
		{Name: "done", Type: "boolean", Description: "Whether it is done.", Line: 7}}, byName["todo"].Fields)
	assert.Equal(t, "data/todo.db", byName["todo"].Database)
	assert.Len(t, byName["welcome"].Steps, 2)
	assert.False(t, byName["welcome"].Session())
}

// TestFolderDiscovery: skill folders, a group folder, a flat file beside
// them, an Agent Skill and a descriptor skillrun does not run.
func TestFolderDiscovery(t *testing.T) {
	l, err := List("testdata/folders")
	require.NoError(t, err)
	md := "testdata/folders/.AchillesSkills/"
	assert.Equal(t, []string{md + "invoices/tskill.md", md + "notes/tskill.md", md + "slugify/cskill.md",
		md + "team/standup/oskill.md", md + "ticket-triage/oskill.md", md + "todo.tskill.md"}, l.Files)
	assert.Equal(t, []string{md + "guide"}, l.AgentSkills)
	require.Len(t, l.Problems, 1)
	assert.Equal(t, skills.Warning, l.Problems[0].Severity)
	assert.Equal(t, md+"legacy-calc/dcgskill.md", l.Problems[0].File)
	assert.Contains(t, l.Problems[0].Message, "does not run dcgskill skills")

	// The .AchillesSkills folder and one skill folder list the same way.
	same, err := List(md)
	require.NoError(t, err)
	assert.Equal(t, l.Files, same.Files)
	one, err := List(md + "ticket-triage")
	require.NoError(t, err)
	assert.Equal(t, []string{md + "ticket-triage/oskill.md"}, one.Files)

	files, err := Files("testdata/folders")
	require.NoError(t, err)
	assert.Equal(t, l.Files, files)
}

func loadOne(t *testing.T, file string) (*Skill, skills.Problems) {
	t.Helper()
	s, problems := Load(file)
	require.NotNil(t, s, "%v", problems)
	return s, problems
}

// TestFolderOskill: an oskill without ## Orchestration is a session: its
// instructions, allowed skills, preparation and Ploinky agents recorded.
func TestFolderOskill(t *testing.T) {
	s, problems := loadOne(t, "testdata/folders/.AchillesSkills/ticket-triage/oskill.md")
	assert.Equal(t, "ticket-triage", s.Name, "the folder names the skill")
	assert.Equal(t, "Ticket Triage", s.Title)
	assert.Equal(t, "testdata/folders/.AchillesSkills/ticket-triage", s.Dir)
	assert.True(t, s.Session())
	assert.True(t, strings.HasPrefix(s.Description, "Sort an incoming support ticket"), s.Description)
	assert.Contains(t, s.Instructions, "then `slugify` to name the case")
	assert.Equal(t, []string{"notes", "slugify"}, s.AllowedSkills)
	assert.Equal(t, []string{"notes"}, s.AllowedPrepSkills)
	assert.Equal(t, []string{"supportAgent", "billingAgent"}, s.AllowedAgents)
	assert.Equal(t, "Look up the customer's recent tickets before judging anything.", s.Preparation)
	assert.Equal(t, "loop", s.SessionType)
	assert.Contains(t, s.Help, "triage")
	assert.Equal(t, []Param{promptParam}, s.Parameters, "AchillesAgentLib passes a prompt text")
	require.Len(t, problems, 1, "%v", problems)
	assert.Equal(t, skills.Warning, problems[0].Severity)
	assert.Equal(t, 22, problems[0].Line)
	assert.Contains(t, problems[0].Message, "Ploinky agents (supportAgent, billingAgent) are recorded but not offered")

	// A group folder's skill is named by its own folder.
	standup, problems := loadOne(t, "testdata/folders/.AchillesSkills/team/standup/oskill.md")
	assert.Empty(t, problems)
	assert.Equal(t, "standup", standup.Name)
	assert.Empty(t, standup.AllowedSkills, "none listed: every skill served beside it")
}

// TestFolderTskill: ## Fields written a ### section a field maps onto
// columns: the generated primary key is the row's id, a given one is a
// unique required column; requirement, type, lengths, pattern, enum,
// uniqueness and aliases are kept; a derived field has no column.
func TestFolderTskill(t *testing.T) {
	s, problems := loadOne(t, "testdata/folders/.AchillesSkills/invoices/tskill.md")
	assert.Equal(t, "invoices", s.Name)
	assert.Equal(t, "Keep the invoices sent to customers: who owes what, and whether it is paid.", s.TablePurpose)
	assert.Equal(t, s.TablePurpose, s.Description, "no paragraph under the title: the table's purpose")
	assert.Equal(t, "invoice_id", s.KeyField)
	assert.Equal(t, "ledger/invoices.db", s.Database)
	require.Len(t, problems, 1, "%v", problems)
	assert.Equal(t, 79, problems[0].Line)
	assert.Contains(t, problems[0].Message, "field total_with_tax is derived")

	var names []string
	for _, f := range s.Fields {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"customer", "amount_cents", "status", "reference"}, names)
	customer, _ := s.Field("customer")
	assert.Equal(t, Param{Name: "customer", Type: "string", Required: true, Line: 16,
		Description: "The customer billed, as written on the invoice.", Aliases: []string{"client", "buyer"},
		Validator: "Between 2 and 120 characters.", MinLength: 2, MaxLength: 120}, customer)
	amount, _ := s.Field("amount_cents")
	assert.Equal(t, "integer", amount.Type)
	assert.True(t, amount.Required)
	status, _ := s.Field("status")
	assert.False(t, status.Required, "the part says no")
	assert.Equal(t, []any{"draft", "sent", "paid"}, status.Enum)
	assert.Equal(t, "draft", status.Default)
	ref, _ := s.Field("reference")
	assert.True(t, ref.Unique)
	assert.Equal(t, "^PO-[0-9]{4,}$", ref.Pattern)

	var schema struct {
		Properties struct {
			Values struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"values"`
			Where struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"where"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(s.InputSchema(), &schema))
	values := schema.Properties.Values.Properties
	assert.Equal(t, []any{"draft", "sent", "paid"}, values["status"]["enum"])
	assert.Equal(t, "^PO-[0-9]{4,}$", values["reference"]["pattern"])
	assert.EqualValues(t, 2, values["customer"]["minLength"])
	assert.EqualValues(t, 120, values["customer"]["maxLength"])
	assert.Contains(t, values["customer"]["description"], "Also called: client, buyer.")
	assert.Contains(t, values["customer"]["description"], "Rule: Between 2 and 120 characters.")
	assert.Contains(t, schema.Properties.Where.Properties["id"]["description"], "primary key invoice_id")
	assert.NotContains(t, values, "invoice_id")
	assert.NotContains(t, values, "total_with_tax")

	// What the schema says is checked for a caller that skips it.
	require.NoError(t, status.Check("paid"))
	require.ErrorContains(t, status.Check("lost"), `field status is one of ["draft","sent","paid"]`)
	require.ErrorContains(t, ref.Check("PO-12"), "must match")
	require.ErrorContains(t, customer.Check("A"), "at least 2 characters")
	require.ErrorContains(t, customer.Check(strings.Repeat("é", 121)), "at most 120 characters")
	require.NoError(t, customer.Check(strings.Repeat("é", 120)))
}

// TestFolderCskill: a cskill's sections and specs/ reach its model; its
// src/ module is said not to run; with no ## Parameters it takes a
// prompt.
func TestFolderCskill(t *testing.T) {
	s, problems := loadOne(t, "testdata/folders/.AchillesSkills/slugify/cskill.md")
	assert.Equal(t, KindCode, s.Kind)
	require.Len(t, problems, 1, "%v", problems)
	assert.Equal(t, "testdata/folders/.AchillesSkills/slugify/src/index.mjs", problems[0].File)
	assert.Contains(t, problems[0].Message, "does not run a cskill's module")
	require.Len(t, s.Specs, 2, "the .txt file is not a spec")
	assert.Equal(t, "specs/helpers/cut.js.md", s.Specs[0].Path)
	assert.Equal(t, "specs/index.mjs.md", s.Specs[1].Path)
	assert.Contains(t, s.Specs[1].Text, "## Function: action(args)")
	assert.Equal(t, []Param{promptParam}, s.Parameters)

	prompt := s.CodePrompt()
	for _, want := range []string{"Turn a title into a short, URL-safe slug.", "# Input format\n\nA title in words",
		"# Output format", "- At most 48 characters.", "# Specification specs/index.mjs.md", "# Specification specs/helpers/cut.js.md",
		"trims hyphens at both ends", "as a JSON object (prompt)", "```javascript block"} {
		assert.Contains(t, prompt, want)
	}
	assert.NotContains(t, prompt, "Example: slugify", "## Help is the user's, not the model's")
}

// TestDuplicateNames: a flat file and a folder of one name are an error
// naming both paths; the first is kept.
func TestDuplicateNames(t *testing.T) {
	list, problems := LoadDir("testdata/dup")
	require.Len(t, list, 1)
	assert.Equal(t, "testdata/dup/.AchillesSkills/report.oskill.md", list[0].File)
	require.Len(t, problems.Errors(), 1)
	assert.Equal(t, "testdata/dup/.AchillesSkills/report/oskill.md: a second skill named report "+
		"(the first is testdata/dup/.AchillesSkills/report.oskill.md): both would be the tool skill_report", problems.Errors()[0].Error())
}

// TestBadFolders: each mistake of the folder layout is an error with its
// file and line.
func TestBadFolders(t *testing.T) {
	list, problems := LoadDir("testdata/bad")
	assert.Len(t, list, 1, "only the first of mixed/ loads")
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	joined := strings.Join(msgs, "\n")
	md := "testdata/bad/.AchillesSkills/"
	for _, want := range []string{
		md + `oskill.md: "oskill.md" names no skill: put it in the skill's folder, .AchillesSkills/<name>/oskill.md, or name it <name>.oskill.md`,
		md + "ledger/tskill.md:7: #### Description is outside a field: each field is a ### section",
		md + "ledger/tskill.md:14: field code is a second primary key (the first is on line 10): a table has one",
		md + "ledger/tskill.md:18: field kind: the enumerated value 1 is not of its type string (declare it with #### Type)",
		md + `ledger/tskill.md:23: field amount: #### Type: "money" is not a type skillrun knows`,
		md + `ledger/tskill.md:26: field "e-mail": a column name is a letter or _ then letters, digits and _`,
		md + "ledger/tskill.md:30: a field line among ### field sections: write every field one way",
		md + "no-input/cskill.md:1: a cskill needs an ## Input Format section",
		md + "loop/oskill.md:5: the oskill loop allows itself",
		md + `loop/oskill.md:7: "not a name" is not a skill or agent name`,
		md + "mixed/iskill.md: a second skill named mixed (the first is " + md + "mixed/cgskill.md)",
	} {
		assert.Contains(t, joined, want)
	}
}

// TestSymlinks: a symbolic link is followed only inside its folder: out
// of .AchillesSkills (a flat file, a skill folder), or out of a skill
// folder (its descriptor, its specs/), it is refused with its path; the
// .AchillesSkills folder itself may be a link.
func TestSymlinks(t *testing.T) {
	outside := t.TempDir()
	write := func(p, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write(filepath.Join(outside, "far.skill.md"), "# far\n\nFar away.\n")
	write(filepath.Join(outside, "far", "oskill.md"), "# far\n\nFar away.\n")
	write(filepath.Join(outside, "spec.md"), "# secret\n")

	root := t.TempDir()
	md := filepath.Join(t.TempDir(), "real")
	require.NoError(t, os.Symlink(md, filepath.Join(root, Folder)), "the folder itself may be a link")
	write(filepath.Join(md, "near.skill.md"), "# near\n\nClose by.\n")
	require.NoError(t, os.Symlink("near.skill.md", filepath.Join(md, "alias.skill.md")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "far.skill.md"), filepath.Join(md, "far.skill.md")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "far"), filepath.Join(md, "far")))
	write(filepath.Join(md, "ok", "oskill.md"), "# ok\n\nFine.\n")
	require.NoError(t, os.Symlink("ok", filepath.Join(md, "ok-too")))
	require.NoError(t, os.MkdirAll(filepath.Join(md, "leaky"), 0o755))
	require.NoError(t, os.Symlink("../ok/oskill.md", filepath.Join(md, "leaky", "oskill.md")))
	write(filepath.Join(md, "code", "cskill.md"), "# code\n\nCode.\n\n## Input Format\nText.\n")
	require.NoError(t, os.Symlink(filepath.Join(outside, "spec.md"), filepath.Join(md, "code", "specs"+".md")))
	require.NoError(t, os.MkdirAll(filepath.Join(md, "code", "specs"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "spec.md"), filepath.Join(md, "code", "specs", "secret.md")))

	l, err := List(root)
	require.NoError(t, err)
	list, problems := l.Load()
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	assert.ElementsMatch(t, []string{"alias", "near", "ok", "ok-too"}, names)
	errs := map[string]string{}
	for _, p := range problems.Errors() {
		errs[strings.TrimPrefix(p.File, root+"/")] = p.Message
	}
	assert.Contains(t, errs[".AchillesSkills/far.skill.md"], "a symbolic link leading out of")
	assert.Contains(t, errs[".AchillesSkills/far"], "a symbolic link leading out of")
	assert.Contains(t, errs[".AchillesSkills/leaky/oskill.md"], "leading out of its skill folder")
	assert.Contains(t, errs[".AchillesSkills/code/specs/secret.md"], "leading out of the skill folder")
	assert.Len(t, errs, 4, "%v", errs)

	// One file named directly is read inside its folder too.
	_, ps := Load(filepath.Join(md, "far.skill.md"))
	require.Len(t, ps, 1)
	assert.Contains(t, ps[0].Message, "a symbolic link leading out of its folder")
}

// TestDiscoveryBounds: skill folders deeper than maxDepth are not
// searched, a listing reads at most maxEntries entries, more than
// maxFiles skills is an error, and a cskill's specs are bounded in
// number and size.
func TestDiscoveryBounds(t *testing.T) {
	write := func(p, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	deep := t.TempDir()
	write(filepath.Join(deep, Folder, "a", "b", "c", "ok", "oskill.md"), "# ok\n\nToo deep.\n")
	write(filepath.Join(deep, Folder, "a", "b", "fine", "oskill.md"), "# fine\n\nDeep enough.\n")
	l, err := List(deep)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(deep, Folder, "a", "b", "fine", "oskill.md")}, l.Files)
	require.Len(t, l.Problems, 1)
	assert.Contains(t, l.Problems[0].Message, "deeper than 3 folders below .AchillesSkills: not searched")

	saved := maxEntries
	t.Cleanup(func() { maxEntries = saved })
	maxEntries = 50
	wide := t.TempDir()
	for i := range maxEntries + 1 {
		write(filepath.Join(wide, Folder, "a", fmt.Sprintf("f%02d.txt", i)), "")
	}
	write(filepath.Join(wide, Folder, "b", "oskill.md"), "# b\n\nNever reached.\n")
	l, err = List(wide)
	require.NoError(t, err)
	assert.Empty(t, l.Files)
	require.Len(t, l.Problems, 1)
	assert.Equal(t, "stopped after 50 entries; the rest is not searched", l.Problems[0].Message)
	maxEntries = saved

	many := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(many, Folder), 0o755))
	for i := range maxFiles + 1 {
		require.NoError(t, os.WriteFile(filepath.Join(many, Folder, fmt.Sprintf("s%d.skill.md", i)), nil, 0o644))
	}
	_, err = List(many)
	require.ErrorContains(t, err, "more than 1000 Markdown skills")

	specs := t.TempDir()
	cs := filepath.Join(specs, Folder, "big", "cskill.md")
	write(cs, "# big\n\nBig specs.\n\n## Input Format\nText.\n")
	write(filepath.Join(specs, Folder, "big", "specs", "huge.md"), strings.Repeat("x", maxSpecFile+1))
	_, ps := Load(cs)
	require.NotEmpty(t, ps.Errors())
	assert.Contains(t, ps.Errors()[0].Error(), "huge.md: over the 131072-byte limit for a specification")
	require.NoError(t, os.Remove(filepath.Join(specs, Folder, "big", "specs", "huge.md")))
	for i := range maxSpecs + 1 {
		write(filepath.Join(specs, Folder, "big", "specs", fmt.Sprintf("s%02d.md", i)), "# s\n")
	}
	_, ps = Load(cs)
	require.NotEmpty(t, ps.Errors())
	assert.Contains(t, ps.Errors()[0].Error(), "more than 64 specification files")
}

func TestIsSkillFileAndRootOf(t *testing.T) {
	for file, want := range map[string]bool{
		"a/.AchillesSkills/x.oskill.md": true, "a/.AchillesSkills/x/oskill.md": true, "x/cskill.md": true,
		"x/SKILL.md": false, "x/skill.md": false, "x/README.md": false, "x/oskill.txt": false, "x.zskill.md": true,
	} {
		assert.Equal(t, want, IsSkillFile(file), file)
	}
	for file, want := range map[string]string{
		"a/.AchillesSkills/x.oskill.md":         "a",
		"a/.AchillesSkills/x/oskill.md":         "a",
		"a/.AchillesSkills/g/h/x/oskill.md":     "a",
		"a/.AchillesSkills/g/h/i/j/x/oskill.md": "",
		"a/skills/x/oskill.md":                  "",
	} {
		assert.Equal(t, want, RootOf(file), file)
	}
}

// TestParseUpstreamSections: AchillesAgentLib's headings are keyed as it
// keys them (case and punctuation aside, aliases), its own sections pass
// silently, and an oskill's session sections are warned about where they
// mean nothing.
func TestParseUpstreamSections(t *testing.T) {
	src := "# helper\n\n## Summary\nHelps.\n\n## Allowed-Skills\n- `a`\n- b\n\n## Guidance\nUse a, then b.\n\n## Fallback-Text\nAsk.\n\n## Session\nsoplang\n"
	s, problems := Parse([]byte(src), "helper/oskill.md")
	require.NotNil(t, s, "%v", problems)
	assert.Equal(t, "Helps.", s.Description)
	assert.Equal(t, []string{"a", "b"}, s.AllowedSkills)
	assert.Equal(t, "Use a, then b.", s.Instructions)
	assert.Equal(t, "soplang", s.SessionType)
	require.Len(t, problems, 1, "%v", problems)
	assert.Equal(t, 16, problems[0].Line)
	assert.Contains(t, problems[0].Message, "skillrun runs every oskill session as a loop")

	s, problems = Parse([]byte("# x\n\nDoes x.\n\n## Allowed Skills\n- a\n"), "x.skill.md")
	require.NotNil(t, s)
	require.Len(t, problems, 1)
	assert.Equal(t, 5, problems[0].Line)
	assert.Contains(t, problems[0].Message, "only an oskill runs a session; the skill kind ignores this section")

	_, problems = Parse([]byte("# x\n\nDoes x.\n\n## Instructions\nA.\n\n## Guidance\nB.\n"), "x/oskill.md")
	assert.Contains(t, problems.Errors().Error(), "x/oskill.md:8: a second ## Guidance section (the first is on line 5)")

	_, problems = Parse([]byte("# x\n\nDoes x.\n\n## Orchestration\n```yaml\nsteps: []\n```\n"), "x.oskill.md")
	assert.Contains(t, problems.Errors().Error(), "no steps")

	_, problems = Parse([]byte("# x\n\nDoes x.\n"), "x/SKILL.md")
	assert.Contains(t, problems.Errors().Error(), "is an Agent Skill, which package skills loads")
}
