package mdskill

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeModels(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, Folder), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, Folder, ModelsFile), []byte(body), 0o644))
	return dir
}

func TestLoadModels(t *testing.T) {
	dir := writeModels(t, `{"fast": {"provider": "anthropic", "model": "claude-haiku-4-5", "apiKeyEnv": "MY_KEY"},
		"offline": {"provider": "scripted", "model": "scripted", "plan": "plans/a.toml"}}`)
	m, err := LoadModels(dir)
	require.NoError(t, err)
	assert.Equal(t, Model{Provider: "anthropic", Model: "claude-haiku-4-5", APIKeyEnv: "MY_KEY"}, m["fast"])
	assert.Equal(t, filepath.Join(dir, Folder, "plans", "a.toml"), m["offline"].Plan)
	none, err := LoadModels(t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, none)

	for body, want := range map[string]string{
		`{"x": {"provider": "gemini", "model": "m"}}`:                   `unknown provider "gemini"`,
		`{"x": {"provider": "openai", "model": "m", "key": "k"}}`:       "unknown field",
		`{"x": {"provider": "scripted", "model": "m", "plan": "../p"}}`: "not a file of the folder",
		`[1]`: "cannot unmarshal",
	} {
		_, err := LoadModels(writeModels(t, body))
		require.ErrorContains(t, err, want, body)
	}
}
