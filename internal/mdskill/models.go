package mdskill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// ModelsFile is the file beside the skills (in the .AchillesSkills
// folder) that maps the model names skills use to a provider.
const ModelsFile = "models.json"

// Providers are the providers a models.json entry may name.
var Providers = []string{"anthropic", "openai", "scripted"}

// A Model is one entry of models.json: which provider serves a model
// name, the provider's own name for it, and the environment variable
// holding the API key. skillrun adds "baseURL" (an OpenAI-compatible
// server) and "plan" (the scripted provider's plan file, relative to the
// folder), for offline runs.
type Model struct {
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	BaseURL   string `json:"baseURL,omitempty"`
	Plan      string `json:"plan,omitempty"`
}

// Models map a model name to its provider.
type Models map[string]Model

// LoadModels reads dir's models.json (dir is the folder holding
// .AchillesSkills, or that folder); none is an empty map. An unknown
// provider, an unknown key or a plan outside the folder is an error.
func LoadModels(dir string) (Models, error) {
	folder := dir
	if filepath.Base(filepath.Clean(dir)) != Folder {
		folder = filepath.Join(dir, Folder)
	}
	file := filepath.Join(folder, ModelsFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Models{}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%s: over %d bytes", file, MaxFile)
	}
	var m Models
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		e := m[k]
		if !slices.Contains(Providers, e.Provider) {
			return nil, fmt.Errorf("%s: model %q: unknown provider %q (one of %v)", file, k, e.Provider, Providers)
		}
		if e.Plan != "" {
			if !filepath.IsLocal(e.Plan) {
				return nil, fmt.Errorf("%s: model %q: plan %q is not a file of the folder", file, k, e.Plan)
			}
			e.Plan = filepath.Join(folder, e.Plan)
			m[k] = e
		}
	}
	return m, nil
}
