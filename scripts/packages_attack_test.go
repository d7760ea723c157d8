package scripts

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/internal/interp"
	"github.com/skillrun/skillrun/sandbox"
)

// Attacks through the compiled packages: hostile images and XML files
// that a skill is handed (or makes) must end in an error that names what
// went wrong, within the run's memory and time, reading nothing outside
// the grant and reaching no network. No host function is involved: the
// C libraries run inside python.wasm like the interpreter.

// attackRun runs a Python script with the workspace granted and 256 MiB
// of memory; it returns the exit status, stdout and stderr. A run that
// the sandbox ends (a trap, the memory limit: the CLI's exit 125) is
// exit status 125 here, and its error is returned.
func attackRun(t *testing.T, script string) (uint32, string, string) {
	code, stdout, stderr, err := attackRunErr(t, script)
	if err != nil {
		require.ErrorIs(t, err, sandbox.ErrTrap)
	}
	return code, stdout, stderr
}

func attackRunErr(t *testing.T, script string) (uint32, string, string, error) {
	t.Helper()
	requirePackages(t)
	s := sourceSkill(t, "read = [\"workspace\"]\nwrite = [\"workspace\"]\nmemory = \"256MiB\"", "scripts/x.py",
		map[string]string{"scripts/x.py": script})
	sr := &ScriptRun{}
	sr.Services.Workspace = t.TempDir()
	start := time.Now()
	run := runSource(t, s, "main", interp.Python, sr)
	if run.err != nil {
		t.Logf("ended in %v: %v", time.Since(start).Round(time.Millisecond), run.err)
		return 125, run.stdout, run.stderr, run.err
	}
	t.Logf("exit %d in %v", run.res.ExitCode, time.Since(start).Round(time.Millisecond))
	return run.res.ExitCode, run.stdout, run.stderr, nil
}

// pngHeader is Python that defines png(width, height, chunks): a PNG
// with a real IHDR and CRCs, and one small IDAT.
const pngHeader = `import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
def png(w, h, extra=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
`

// TestAttackPillowDecompressionBomb: an image whose header claims 40000
// by 40000 pixels hits Pillow's own pixel limit at open.
func TestAttackPillowDecompressionBomb(t *testing.T) {
	code, _, stderr := attackRun(t, pngHeader+`
open("bomb.png", "wb").write(png(40000, 40000))
from PIL import Image
Image.open("bomb.png")
`)
	assert.Equal(t, uint32(1), code)
	assert.Contains(t, stderr, "DecompressionBombError")
}

// TestAttackPillowLimitOff: a script that turns Pillow's limit off and
// decodes the bomb gets a MemoryError from the run's memory limit (or
// the run ends, exit 125), never the host's memory.
func TestAttackPillowLimitOff(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: decodes a decompression bomb up to the memory limit (2 s); the full suite runs it")
	}
	code, stdout, stderr, err := attackRunErr(t, pngHeader+`
open("bomb.png", "wb").write(png(40000, 40000))
from PIL import Image
Image.MAX_IMAGE_PIXELS = None
Image.open("bomb.png").load()
print("decoded")
`)
	assert.Empty(t, stdout)
	if err != nil {
		require.ErrorIs(t, err, sandbox.ErrMemoryLimit)
	} else {
		assert.Equal(t, uint32(1), code)
		assert.Contains(t, stderr, "MemoryError")
	}
}

// TestAttackPillowTextBomb: a PNG text chunk that inflates far
// (8 MiB here) stops at Pillow's 1 MiB text-chunk limit.
func TestAttackPillowTextBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: inflates an 8 MiB PNG text chunk (1 s); the full suite runs it")
	}
	code, _, stderr := attackRun(t, pngHeader+`
text = b"Comment\0\0" + zlib.compress(b"A" * (8 << 20), 9)
open("text.png", "wb").write(png(8, 8, chunk(b"zTXt", text)))
from PIL import Image
Image.open("text.png").load()
`)
	assert.Equal(t, uint32(1), code)
	assert.Contains(t, stderr, "Decompressed Data Too Large")
}

// TestAttackPillowCorruptJPEG: a JPEG whose Huffman table is bogus makes
// libjpeg give up through longjmp, which WebAssembly here cannot unwind:
// the run ends with exit 125 and a message naming Pillow's JPEG codec,
// instead of the OSError a native run raises. Never a hang.
func TestAttackPillowCorruptJPEG(t *testing.T) {
	code, stdout, stderr := attackRun(t, `import io
from PIL import Image
b = io.BytesIO()
Image.new("RGB", (16, 16), (200, 10, 10)).save(b, "JPEG")
data = bytearray(b.getvalue())
i = data.find(b"\xff\xc4")
for k in range(16):
    data[i + 5 + k] = 0xff
open("bad.jpg", "wb").write(data)
print("written", flush=True)
Image.open("bad.jpg").load()
print("decoded")
`)
	assert.Equal(t, uint32(125), code)
	assert.Equal(t, "written\n", stdout)
	assert.Contains(t, stderr, "Pillow (libjpeg) reported a fatal error")
}

// TestAttackPillowTruncatedJPEG: a JPEG cut short is Pillow's own
// OSError, as natively.
func TestAttackPillowTruncatedJPEG(t *testing.T) {
	code, _, stderr := attackRun(t, `import io
from PIL import Image
b = io.BytesIO()
Image.effect_noise((64, 64), 40).convert("RGB").save(b, "JPEG")
open("cut.jpg", "wb").write(b.getvalue()[: len(b.getvalue()) // 2])
Image.open("cut.jpg").load()
`)
	assert.Equal(t, uint32(1), code)
	assert.Contains(t, stderr, "OSError: image file is truncated")
}

// TestAttackLxmlBillionLaughs: nested entities that would expand to
// gigabytes stop at libxml2's amplification limits (lxml parses without
// huge_tree), quickly.
func TestAttackLxmlBillionLaughs(t *testing.T) {
	code, _, stderr := attackRun(t, `from lxml import etree
ents = '<!ENTITY a0 "lol">' + "".join(
    '<!ENTITY a%d "%s">' % (i, ("&a%d;" % (i - 1)) * 10) for i in range(1, 10))
doc = '<?xml version="1.0"?><!DOCTYPE r [' + ents + ']><r>&a9;</r>'
etree.fromstring(doc.encode())
print("expanded")
`)
	assert.Equal(t, uint32(1), code)
	assert.Contains(t, stderr, "lxml.etree.XMLSyntaxError")
}

// TestAttackLxmlDepth: a document nested 100,000 deep stops at
// libxml2's depth limit.
func TestAttackLxmlDepth(t *testing.T) {
	code, _, stderr := attackRun(t, `from lxml import etree
etree.fromstring(b"<a>" * 100000 + b"</a>" * 100000)
`)
	assert.Equal(t, uint32(1), code)
	assert.Contains(t, stderr, "Excessive depth")
}

// TestAttackLxmlExternalEntities: external entities (lxml resolves them
// by default) pointing at a host file outside the grant, at /etc/passwd
// and at a server on loopback read nothing and connect nowhere.
func TestAttackLxmlExternalEntities(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("TOP-SECRET-7f3a"), 0o644))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = ln.Close() }()
	var connected atomic.Bool
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connected.Store(true)
			_ = c.Close()
		}
	}()
	for _, target := range []string{"file://" + secret, secret, "file:///etc/passwd", "http://" + ln.Addr().String() + "/x"} {
		t.Run(strings.ReplaceAll(target, "/", "_"), func(t *testing.T) {
			code, stdout, stderr := attackRun(t, `from lxml import etree
doc = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "`+target+`">]><r>&x;</r>'
try:
    r = etree.fromstring(doc, etree.XMLParser(resolve_entities=True, no_network=False, load_dtd=True))
    print("parsed", repr(etree.tostring(r)))
except etree.XMLSyntaxError as e:
    print("refused", e)
`)
			assert.Zero(t, code, stderr)
			assert.NotContains(t, stdout+stderr, "TOP-SECRET")
			assert.NotContains(t, stdout+stderr, "root:x:0:0")
			assert.True(t, strings.HasPrefix(stdout, "refused") || strings.HasPrefix(stdout, "parsed b'<r>&x;</r>'") ||
				strings.HasPrefix(stdout, "parsed b'<r/>'"), "stdout: %s", stdout)
		})
	}
	time.Sleep(50 * time.Millisecond)
	assert.False(t, connected.Load(), "an XML entity reached a loopback server")
}
