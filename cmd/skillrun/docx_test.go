package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/pydeps"
	"github.com/skillrun/skillrun/internal/testkit"
)

// docxScript writes a Word document with python-docx and reads it back:
// what the office-document skills do, through lxml.
const docxScript = `import docx
from docx.shared import Pt

d = docx.Document()
d.add_heading("Quarterly report", level=1)
p = d.add_paragraph("Revenue grew ")
p.add_run("12%").bold = True
p.add_run(" over the quarter.")
t = d.add_table(rows=2, cols=2)
for i, row in enumerate([("region", "revenue"), ("west", "232.30")]):
    for j, v in enumerate(row):
        t.cell(i, j).text = v
d.styles["Normal"].font.size = Pt(11)
d.save("report.docx")

back = docx.Document("report.docx")
print([p.text for p in back.paragraphs])
print([[c.text for c in r.cells] for r in back.tables[0].rows])
print(back.paragraphs[1].runs[1].bold, back.styles["Normal"].font.size.pt)
`

// TestDocxThroughBuiltinLxml: a published-style skill that uses
// python-docx, a pure-Python package over lxml. `skillrun deps` pins
// python-docx from a folder of wheels (built from Debian's python3-docx)
// and counts lxml, which python-docx requires, as built in; the script
// then runs in the sandbox and prints what Debian's python3-docx and
// python3-lxml print natively.
func TestDocxThroughBuiltinLxml(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	needPython(t)
	if out, err := exec.Command("/usr/bin/python3.11", "-c", "import docx, lxml").CombinedOutput(); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatalf("Debian's python3-docx and python3-lxml are required (REQUIRE_TOOLCHAINS=1): %v: %s", err, out)
		}
		t.Skipf("no python3-docx: %s", out)
	}
	wheels := t.TempDir()
	_, err := pydeps.DebianWheels(wheels, "python-docx")
	require.NoError(t, err)
	skill := filepath.Join(t.TempDir(), "reports")
	testkit.WriteTree(t, "", map[string]string{
		skill + "/SKILL.md":          "---\nname: reports\ndescription: Writes Word reports.\n---\nRun `python scripts/report.py`.\n",
		skill + "/requirements.txt":  "python-docx>=0.8\n",
		skill + "/scripts/report.py": docxScript,
	})

	code, out, errOut := depsOf(skill, "--find-links", wheels, "--index-url", "none", "--refresh")
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, out, "python-docx 0.8.11")
	assert.Contains(t, out, "lxml "+builtin(t, "lxml").Version+" (built into skillrun's Python)")

	ws := t.TempDir()
	var stdout, stderr bytes.Buffer
	code = run([]string{"run", skill + ":scripts/report.py", "--workspace", ws, "-A"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())

	native := t.TempDir()
	cmd := exec.Command("/usr/bin/python3.11", filepath.Join(skill, "scripts", "report.py"))
	cmd.Dir = native
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	want, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, string(want), stdout.String())
	_, err = os.Stat(filepath.Join(ws, "report.docx"))
	assert.NoError(t, err, "the document is in the workspace")
}
