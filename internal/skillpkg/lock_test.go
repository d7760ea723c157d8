package skillpkg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLockErrors(t *testing.T) {
	const hash = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	const commit = "0123456789abcdef0123456789abcdef01234567"
	entry := func(field, value string) string {
		f := map[string]string{"source": "acme/skills", "sourceType": "github", "computedHash": hash,
			"url": "https://github.com/acme/skills.git", "ref": "", "commit": commit, "skillPath": "skills/pdf"}
		f[field] = value
		var b strings.Builder
		b.WriteString(`{"version": 1, "skills": {"pdf": {`)
		first := true
		for _, k := range []string{"source", "sourceType", "computedHash", "url", "ref", "commit", "skillPath"} {
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(`"` + k + `": "` + f[k] + `"`)
		}
		b.WriteString("}}}\n")
		return b.String()
	}
	tests := []struct {
		name, src, wantErr string
	}{
		{"bad JSON", "{\n  \"version\": 1,\n  \"skills\": {,}\n}\n", "line 3, column 14"},
		{"unknown version", `{"version": 2, "skills": {}}`, "version 2: this skillrun reads version 1"},
		{"bad hash", entry("computedHash", "sha256:abc"), `skill "pdf": computedHash: "sha256:abc" is not sha256:`},
		{"md5 hash", entry("computedHash", "md5:0123"), "computedHash"},
		{"bad commit", entry("commit", "abc123"), `skill "pdf": commit: "abc123" is not a full commit`},
		{"dot-dot path", entry("skillPath", "../outside"), `skill "pdf": skillPath: "../outside" must be a relative slash path`},
		{"absolute path", entry("skillPath", "/etc"), "skillPath"},
		{"bad source type", entry("sourceType", "npm"), "sourceType"},
		{"option as URL", entry("url", "--upload-pack=evil"), "url"},
		{"bad name", strings.Replace(entry("ref", ""), `"pdf"`, `"../x"`, 1), `skill "../x": the name is not a valid skill name`},
		{"unknown field", strings.Replace(entry("ref", ""), `"ref"`, `"reff"`, 1), `unknown field "reff"`},
		{"wrong type", `{"version": "1", "skills": {}}`, "line 1, column"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), LockFile)
			if err := os.WriteFile(file, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadLock(file)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	t.Run("good", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), LockFile)
		if err := os.WriteFile(file, []byte(entry("ref", "v1.2")), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := ReadLock(file)
		if err != nil || l.Skills["pdf"].Ref != "v1.2" {
			t.Fatalf("%+v %v", l, err)
		}
		if err := l.Write(file); err != nil {
			t.Fatal(err)
		}
		if again, err := ReadLock(file); err != nil || again.Skills["pdf"] != l.Skills["pdf"] {
			t.Fatalf("round trip: %+v %v", again, err)
		}
	})
}

func TestParseSource(t *testing.T) {
	local := t.TempDir()
	tests := []struct {
		in   string
		want Source
	}{
		{"acme/skills", Source{Raw: "acme/skills", Type: TypeGitHub, URL: "https://github.com/acme/skills.git", Git: true}},
		{"acme/skills@v1.0", Source{Raw: "acme/skills", Type: TypeGitHub, URL: "https://github.com/acme/skills.git", Ref: "v1.0", Git: true}},
		{"acme/skills@feature/x", Source{Raw: "acme/skills", Type: TypeGitHub, URL: "https://github.com/acme/skills.git", Ref: "feature/x", Git: true}},
		{"git@github.com:acme/skills.git", Source{Raw: "git@github.com:acme/skills.git", Type: TypeGit, URL: "git@github.com:acme/skills.git", Git: true}},
		{"git@github.com:acme/skills.git@main", Source{Raw: "git@github.com:acme/skills.git", Type: TypeGit, URL: "git@github.com:acme/skills.git", Ref: "main", Git: true}},
		{"https://user@host.example/acme/skills.git", Source{Raw: "https://user@host.example/acme/skills.git", Type: TypeGit, URL: "https://user@host.example/acme/skills.git", Git: true}},
		{"https://user@host.example/acme/skills.git@v2", Source{Raw: "https://user@host.example/acme/skills.git", Type: TypeGit, URL: "https://user@host.example/acme/skills.git", Ref: "v2", Git: true}},
		{local, Source{Raw: local, Type: TypeLocal, URL: local}},
	}
	for _, tt := range tests {
		got, err := ParseSource(tt.in)
		if err != nil {
			t.Errorf("ParseSource(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseSource(%q):\n got %+v\nwant %+v", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"", "ext::sh -c evil", "acme/skills@-oops", "acme/skills@a..b", "just-a-name", "./no-such-folder", "ftp://host/x"} {
		if _, err := ParseSource(bad); err == nil {
			t.Errorf("ParseSource(%q) accepted", bad)
		}
	}
}
