package bench

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findChromium finds a Chromium to load pages in. Without one the test
// skips on a laptop; CI installs Debian's chromium and sets
// REQUIRE_TOOLCHAINS=1, which makes the skip a failure.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("REQUIRE_TOOLCHAINS") == "1" {
		t.Fatal("no chromium, chromium-browser or google-chrome in PATH, and REQUIRE_TOOLCHAINS=1 (apt-get install chromium)")
	}
	t.Skip("no chromium in PATH (apt-get install chromium); CI runs this test")
	return ""
}

// loadPage loads file in headless Chromium and returns the DOM after
// load and what Chromium logged.
func loadPage(t *testing.T, chromium, file string) (dom, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	abs, err := filepath.Abs(file)
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
		"--enable-logging=stderr", "--v=0", "--user-data-dir="+t.TempDir(), "file://"+filepath.ToSlash(abs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	return stdout.String(), stderr.String()
}

// consoleLine matches what Chromium logs for a page's console message
// or uncaught exception: `[pid:tid:time:INFO:CONSOLE:1] "boom", source:
// file:///... (1)` (CONSOLE(1) in older releases). The comparison page
// has no script, so any such line is a fault: an error, or something
// the Content-Security-Policy refused.
var consoleLine = regexp.MustCompile(`:CONSOLE[:(]\d+|Uncaught`)

func pageErrors(log string) []string {
	var out []string
	for l := range strings.Lines(log) {
		if consoleLine.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// TestHTMLChromium: the comparison page loads in a real browser with no
// console error, and its charts are drawn: the DOM after load holds the
// SVG bars.
func TestHTMLChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the full suite (make test) runs it")
	}
	chromium := findChromium(t)
	dir := t.TempDir()

	t.Run("detects console errors", func(t *testing.T) {
		// The check below is only worth something if it sees an error.
		file := filepath.Join(dir, "bad.html")
		require.NoError(t, os.WriteFile(file, []byte(`<!DOCTYPE html><html><body><p>x</p>`+
			`<script>console.error("boom-from-page")</script></body></html>`), 0o644))
		_, log := loadPage(t, chromium, file)
		errs := pageErrors(log)
		require.NotEmpty(t, errs, "a console.error went unseen; chromium logged:\n%s", log)
		assert.Contains(t, strings.Join(errs, "\n"), "boom-from-page")
	})

	t.Run("comparison page", func(t *testing.T) {
		c := reportFixture(t)
		var b bytes.Buffer
		require.NoError(t, c.WriteHTML(&b))
		file := filepath.Join(dir, "compare.html")
		require.NoError(t, os.WriteFile(file, b.Bytes(), 0o644))
		dom, log := loadPage(t, chromium, file)
		assert.Empty(t, pageErrors(log), "chromium logged:\n%s", log)
		assert.Equal(t, len(c.metrics()), strings.Count(dom, `<svg class="metric"`), "the charts are in the DOM")
		assert.Equal(t, len(c.metrics())*len(c.Sets), strings.Count(dom, "<rect "), "a bar per set in every chart")
		assert.Regexp(t, `<rect class="bar[^"]*" x="\d+" y="\d+" width="[1-9]`, dom, "bars with a width")
		assert.Contains(t, dom, "&lt;script&gt;alert(1)&lt;/script&gt;", "the name is text, not a script")
		assert.NotContains(t, dom, "<script>")
	})
}
