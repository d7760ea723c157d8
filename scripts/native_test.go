package scripts

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillrun/skillrun/capabilities"
	"github.com/skillrun/skillrun/host"
	"github.com/skillrun/skillrun/internal/testkit"
	"github.com/skillrun/skillrun/native"
	"github.com/skillrun/skillrun/skills"
)

// TestNativeNetwork: under the native tier a script's HTTP goes through
// the proxy that enforces its net grant: the granted host answers, a host
// not granted is refused (403, audited), and a direct connection, around
// the proxy, reaches nothing.
func TestNativeNetwork(t *testing.T) {
	requireNative(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.URL.Path)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello over TLS")
	}))
	defer tlsSrv.Close()
	tlsPort := tlsSrv.Listener.Addr().(*net.TCPAddr).Port

	dir := filepath.Join(t.TempDir(), "netskill")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: netskill\ndescription: Fetches.\n---\nRun scripts/get.py.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skill.toml"), []byte(fmt.Sprintf("version = 1\n[capabilities]\nnet = [\"127.0.0.1:%d\", \"localhost:%d\", \"127.0.0.1:%d\"]\n", port, port, tlsPort)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "get.py"), []byte(`
import socket, ssl, sys, urllib.request, urllib.error
for url in sys.argv[1:]:
    try:
        print(url.split("/")[2], urllib.request.urlopen(url, timeout=10, context=ssl._create_unverified_context()).read().decode())
    except urllib.error.HTTPError as e:
        print(url.split("/")[2], "refused", e.code, e.read().decode().strip()[:80])
try:
    socket.create_connection(("127.0.0.1", `+fmt.Sprint(port)+`), timeout=3)
    print("direct: connected")
except OSError as e:
    print("direct:", type(e).__name__)
`), 0o644))
	s, err := skills.Load(dir, nil)
	require.NoError(t, err)

	var log testkit.AuditLog
	granted := fmt.Sprintf("127.0.0.1:%d", port)
	hp, err := capabilities.ParseHostPattern(granted)
	require.NoError(t, err)
	hpTLS, err := capabilities.ParseHostPattern(fmt.Sprintf("127.0.0.1:%d", tlsPort))
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	res, err := sharedRunner(t).RunScript(context.Background(), s, "scripts/get.py", &ScriptRun{
		Services: host.Services{Auditor: log.Auditor()},
		Granted:  capabilities.Set{Net: []capabilities.HostPattern{hp, hpTLS}},
		Args: []string{fmt.Sprintf("http://127.0.0.1:%d/granted", port), fmt.Sprintf("http://localhost:%d/not", port),
			fmt.Sprintf("https://127.0.0.1:%d/", tlsPort)},
		Stdout: &out, Stderr: &errOut,
		Native: &NativeTier{},
	})
	require.NoError(t, err, errOut.String())
	require.Equal(t, uint32(0), res.ExitCode, errOut.String())
	got := out.String()
	assert.Contains(t, got, granted+" hello from /granted")
	assert.Contains(t, got, fmt.Sprintf("localhost:%d refused 403", port))
	assert.Contains(t, got, fmt.Sprintf("127.0.0.1:%d hello over TLS", tlsPort), "HTTPS through a CONNECT tunnel")
	assert.Contains(t, got, "direct: PermissionError", "a connection around the proxy is refused")
	log.Has(t, "allow net "+granted+":", "")
	log.Has(t, "deny net localhost:", "")
}

// requireNative fails where CI promises the kernel can confine host
// processes (REQUIRE_TOOLCHAINS=1) and skips elsewhere.
func requireNative(t *testing.T) {
	t.Helper()
	if err := native.Check(); err != nil {
		if os.Getenv("REQUIRE_TOOLCHAINS") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}
