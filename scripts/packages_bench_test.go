package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/interp"
)

// BenchmarkPackages: scripts that use the compiled packages built into
// python.wasm, against Debian's python3.11 with python3-pil and
// python3-lxml in the same run: a Pillow thumbnail job (decode a JPEG,
// resize, encode PNG and JPEG) and an lxml job (parse a 1 MB document,
// XPath, XSLT, serialise). Runs start from the snapshot, where PIL.Image
// and lxml.etree are already imported (as a resident serving MCP does);
// x-native is the ratio.
func BenchmarkPackages(b *testing.B) {
	const pillow = `import sys
from PIL import Image
im = Image.open("photo.jpg")
im.thumbnail((320, 240))
im.save("thumb.png")
im.save("thumb.jpg", quality=80)
print("thumb", im.size)
`
	const lxml = `from lxml import etree
doc = etree.parse("big.xml")
rows = doc.xpath("//row[@kind='b']")
xslt = etree.XSLT(etree.XML(b'<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
    b'<xsl:template match="/"><n><xsl:value-of select="count(//row)"/></n></xsl:template></xsl:stylesheet>'))
out = etree.tostring(doc, pretty_print=True)
print("rows", len(rows), str(xslt(doc)).strip().splitlines()[-1], len(out) > 0)
`
	for _, c := range []struct{ name, src, want string }{
		{"pillow", pillow, "thumb (320, 213)"},
		{"lxml", lxml, "rows 5000 <n>20000</n> True"},
	} {
		b.Run(c.name, func(b *testing.B) {
			native := nativeFor(b, interp.Python)
			require.NoError(b, exec.Command(native, "-c", "import PIL.Image, lxml.etree").Run(), "the baseline needs Debian's python3-pil and python3-lxml")
			ws := b.TempDir()
			prep := exec.Command(native, "-c", `from PIL import Image, ImageDraw
im = Image.new("RGB", (2400, 1600), "white")
d = ImageDraw.Draw(im)
for i in range(0, 2400, 40):
    d.line((i, 0, 2400 - i, 1600), fill=(i % 255, 90, 200), width=5)
im.save("photo.jpg", quality=90)
kinds = "abcd"
with open("big.xml", "w") as f:
    f.write("<rows>")
    for i in range(20000):
        f.write('<row id="%d" kind="%s"><v>%d</v><t>text %d</t></row>' % (i, kinds[i % 4], i * 7, i))
    f.write("</rows>")
`)
			prep.Dir = ws
			out, err := prep.CombinedOutput()
			require.NoError(b, err, "inputs: %s", out)
			s := benchSkillCaps(b, "read = [\"workspace\"]\nwrite = [\"workspace\"]\nmemory = \"512MiB\"", "scripts/x.py", c.src)
			script := filepath.Join(filepath.Dir(s.Location), "scripts", "x.py")
			benchSource(b, sourceRunner(b), s, "main", interp.Python,
				func() *ScriptRun { return &ScriptRun{Services: host.Services{Workspace: ws}} },
				func() *exec.Cmd {
					cmd := exec.Command(native, script)
					cmd.Dir = ws
					cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + os.TempDir()}
					return cmd
				}, c.want)
		})
	}
}
