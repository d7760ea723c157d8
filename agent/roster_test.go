package agent

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func def(t *testing.T, name string, src Source, plugin, file string) *Definition {
	t.Helper()
	d, err := ParseDefinition([]byte("---\nname: "+name+"\n---\n"+file+"\n"), file, src, plugin)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// logBuffer returns a logger that writes text lines to the returned buffer.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})
	return slog.New(h), &buf
}

func TestNewSetPrecedence(t *testing.T) {
	tests := []struct {
		name     string
		defs     func(t *testing.T) []*Definition
		lookup   map[string]string // name -> File it resolves to ("" = absent)
		list     []string          // File of each listed definition
		wantLogs []string          // one substring per log line, in order
	}{
		{
			name: "user overrides builtin; a plugin's agent of that name is its own",
			defs: func(t *testing.T) []*Definition {
				return []*Definition{
					def(t, "general", SourceBuiltin, "", "builtin/general.md"),
					def(t, "general", SourcePlugin, "pack", "pack/general.md"),
					def(t, "general", SourceUser, "", "user/general.md"),
				}
			},
			lookup: map[string]string{"general": "user/general.md", "pack:general": "pack/general.md"},
			list:   []string{"user/general.md", "pack/general.md"},
			wantLogs: []string{
				`level=INFO msg="agent definition overridden by a higher source" agent=general winner=user/general.md winner_source=user overridden=builtin/general.md overridden_source=builtin`,
			},
		},
		{
			// Issue 11 finding 16: a skill's agents/general.md became the
			// session's default agent, with its own prompt and model.
			name: "a plugin never replaces the builtin, whatever the order",
			defs: func(t *testing.T) []*Definition {
				return []*Definition{
					def(t, "general", SourcePlugin, "pack", "pack/general.md"),
					def(t, "general", SourceBuiltin, "", "builtin/general.md"),
				}
			},
			lookup: map[string]string{"general": "builtin/general.md", "pack:general": "pack/general.md"},
			list:   []string{"builtin/general.md", "pack/general.md"},
		},
		{
			name: "same source and name: first wins with a warning",
			defs: func(t *testing.T) []*Definition {
				return []*Definition{
					def(t, "a", SourceUser, "", "user/a.md"),
					def(t, "a", SourceUser, "", "user/a2.md"),
				}
			},
			lookup: map[string]string{"a": "user/a.md"},
			list:   []string{"user/a.md"},
			wantLogs: []string{
				`level=WARN msg="duplicate agent definition ignored; the first wins" agent=a source=user kept=user/a.md ignored=user/a2.md`,
			},
		},
		{
			name: "same plugin twice: first wins with a warning",
			defs: func(t *testing.T) []*Definition {
				return []*Definition{
					def(t, "a", SourcePlugin, "p", "p/a.md"),
					def(t, "a", SourcePlugin, "p", "p/a2.md"),
				}
			},
			lookup:   map[string]string{"a": "", "p:a": "p/a.md"},
			list:     []string{"p/a.md"},
			wantLogs: []string{`level=WARN msg="duplicate agent definition ignored; the first wins" agent=p:a source=plugin kept=p/a.md ignored=p/a2.md`},
		},
		{
			name: "two plugins, same name: both kept, neither by the bare name",
			defs: func(t *testing.T) []*Definition {
				return []*Definition{
					def(t, "reviewer", SourcePlugin, "beta", "beta/reviewer.md"),
					def(t, "reviewer", SourcePlugin, "alpha", "alpha/reviewer.md"),
					def(t, "other", SourceUser, "", "user/other.md"),
				}
			},
			lookup: map[string]string{
				"reviewer":       "",
				"beta:reviewer":  "beta/reviewer.md",
				"alpha:reviewer": "alpha/reviewer.md",
				"gamma:reviewer": "",
				"other":          "user/other.md",
			},
			list: []string{"user/other.md", "alpha/reviewer.md", "beta/reviewer.md"},
		},
		{
			name: "colliding pool keys: the later is dropped",
			defs: func(t *testing.T) []*Definition {
				return []*Definition{
					def(t, "b-c", SourcePlugin, "a", "a/b-c.md"),
					def(t, "c", SourcePlugin, "a-b", "a-b/c.md"),
				}
			},
			lookup: map[string]string{"a:b-c": "a/b-c.md", "b-c": "", "c": "", "a-b:c": ""},
			list:   []string{"a/b-c.md"},
			wantLogs: []string{
				`level=WARN msg="agent definition ignored: its pool key collides with another agent's" agent=a-b:c pool_key=plugin-a-b-c kept=a/b-c.md ignored=a-b/c.md`,
			},
		},
		{
			name: "user agent named like a pool key does not collide",
			defs: func(t *testing.T) []*Definition {
				return []*Definition{
					def(t, "plugin-a-b", SourceUser, "", "user/plugin-a-b.md"),
					def(t, "b", SourcePlugin, "a", "a/b.md"),
				}
			},
			lookup: map[string]string{"plugin-a-b": "user/plugin-a-b.md", "a:b": "a/b.md", "b": ""},
			list:   []string{"a/b.md", "user/plugin-a-b.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, buf := logBuffer()
			s := NewRoster(logger, tt.defs(t)...)
			for name, want := range tt.lookup {
				d, ok := s.Lookup(name)
				switch {
				case want == "" && ok:
					t.Errorf("Lookup(%q) = %s, want none", name, d.File)
				case want != "" && !ok:
					t.Errorf("Lookup(%q) found none, want %s", name, want)
				case ok && d.File != want:
					t.Errorf("Lookup(%q) = %s, want %s", name, d.File, want)
				}
			}
			var list []string
			for _, d := range s.List() {
				list = append(list, d.File)
			}
			assert.Equal(t, tt.list, list, "List")
			var logs []string
			if out := strings.TrimSpace(buf.String()); out != "" {
				logs = strings.Split(out, "\n")
			}
			assert.Equal(t, tt.wantLogs, logs, "log")
		})
	}
}

func TestPoolKeys(t *testing.T) {
	a := def(t, "reviewer", SourcePlugin, "alpha", "alpha/reviewer.md")
	b := def(t, "reviewer", SourcePlugin, "beta", "beta/reviewer.md")
	u := def(t, "reviewer", SourceUser, "", "user/reviewer.md")
	g := def(t, "general", SourceBuiltin, "", "builtin/general.md")
	got := []string{a.PoolKey(), b.PoolKey(), u.PoolKey(), g.PoolKey()}
	want := []string{"plugin-alpha-reviewer", "plugin-beta-reviewer", "agent-reviewer", "agent-general"}
	assert.Equal(t, want, got)

	// Both plugins' agents stay in the set, tagged with their plugins and
	// with distinct pool keys.
	s := NewRoster(nil, a, b)
	keys := map[string]string{}
	for _, d := range s.List() {
		if d.Source != SourcePlugin || d.Plugin == "" {
			t.Errorf("%s: Source, Plugin = %v, %q", d.File, d.Source, d.Plugin)
		}
		keys[d.PoolKey()] = d.Plugin
	}
	assert.Equal(t, map[string]string{"plugin-alpha-reviewer": "alpha", "plugin-beta-reviewer": "beta"}, keys, "pool keys")
}

func TestNewSetNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSet(nil definition) did not panic")
		}
	}()
	NewRoster(nil, nil)
}

func TestSetListIsACopy(t *testing.T) {
	s := NewRoster(nil, Builtin()...)
	l := s.List()
	l[0] = nil
	if s.List()[0] == nil {
		t.Error("List returned the set's own slice")
	}
	var zero Roster
	if _, ok := zero.Lookup("general"); ok || len(zero.List()) != 0 {
		t.Error("zero Set is not empty")
	}
}

// TestSetConcurrentReads is a hammer test for the race detector.
func TestSetConcurrentReads(t *testing.T) {
	s := NewRoster(nil,
		def(t, "reviewer", SourcePlugin, "alpha", "alpha/reviewer.md"),
		def(t, "reviewer", SourcePlugin, "beta", "beta/reviewer.md"),
		def(t, "general", SourceBuiltin, "", "builtin/general.md"),
	)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if _, ok := s.Lookup("beta:reviewer"); !ok {
					t.Error("beta:reviewer not found")
					return
				}
				if len(s.List()) != 3 {
					t.Error("List changed")
					return
				}
			}
		})
	}
	wg.Wait()
}
