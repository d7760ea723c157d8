package skills

import (
	"io"
	"io/fs"
	"slices"
	"sort"

	"github.com/skillrun/skillrun/capabilities"
)

// A Skill is one loaded Agent Skills package: its SKILL.md frontmatter and
// body, its optional skill.toml manifest, and where its files live.
//
// A Skill is immutable once loaded and safe for concurrent use.
type Skill struct {
	// Name and Description are the spec's required fields, trimmed.
	Name        string `json:"name"`
	Description string `json:"description"`
	// License, Compatibility and AllowedTools are optional spec fields.
	// AllowedTools keeps the spec's space-delimited form; a YAML list is
	// joined with spaces, as the reference implementation does.
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	AllowedTools  string            `json:"allowed_tools,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// Extra holds frontmatter keys outside the spec, kept rather than
	// dropped (values are strings, []any or map[string]any) and reported as
	// problems.
	Extra map[string]any `json:"extra,omitempty"`

	// Body is the Markdown after the frontmatter (level 2), and BodyLine
	// the line of SKILL.md it starts on.
	Body     string `json:"-"`
	BodyLine int    `json:"-"`

	// Manifest is the parsed skill.toml, or nil for an instructions-only
	// skill.
	Manifest *Manifest `json:"manifest,omitempty"`

	// Dir is the skill's directory as given to the loader (a path on disk,
	// a zip path, or a path inside an fs.FS), and FileName "SKILL.md" or
	// "skill.md".
	Dir      string `json:"dir"`
	FileName string `json:"file"`
	// Location is the absolute path of SKILL.md on disk, as the catalog's
	// <location> shows it; for a zip or fs.FS skill it is Dir/FileName.
	Location string `json:"location"`
	// Origin says which discovery root the skill came from.
	Origin Origin `json:"origin,omitempty"`

	// Problems are the warnings found while loading (a skill with errors
	// is not returned by the lenient loaders).
	Problems Problems `json:"problems,omitempty"`

	// Rivals are the locations of the other skills [Discover] met that
	// claim this skill's name (compared after NFKC normalisation and case
	// folding). While a skill has rivals, a policy table by name alone
	// grants it nothing: see [Skill.Ref].
	Rivals []string `json:"rivals,omitempty"`

	files fileSource
	// place is where the skill lives, absolute with links resolved: its
	// folder or .zip archive ("" for an fs.FS skill); folder is the name
	// the specification says the skill's name must match.
	place, folder string
}

// Ref returns what a policy needs to decide which grants are this
// skill's: its claimed name, its location, its folder's name, its rivals
// and its digest (computed only if the policy pins one). See
// [capabilities.Policy.Grant].
func (s *Skill) Ref() capabilities.SkillRef {
	return capabilities.SkillRef{
		Name:   s.Name,
		Path:   s.place,
		Folder: s.folder,
		Rivals: slices.Clone(s.Rivals),
		Digest: s.Digest,
	}
}

// Place returns where the skill lives: its folder or .zip archive,
// absolute with symbolic links resolved, or "" for a skill loaded from an
// fs.FS. It is the location a policy pins with path = "...".
func (s *Skill) Place() string { return s.place }

// A fileSource opens the skill's root as an fs.FS for levels 2 and 3. For a
// directory it opens an os.Root each time, so a loaded skill does not hold a
// file descriptor and every read is confined to the skill root.
type fileSource interface {
	open() (fs.FS, io.Closer, error)
}

// Triggers returns the extra discovery words from skill.toml, if any.
func (s *Skill) Triggers() []string {
	if s.Manifest == nil {
		return nil
	}
	return s.Manifest.Triggers
}

// specFields are the frontmatter keys the Agent Skills specification allows.
var specFields = []string{"allowed-tools", "compatibility", "description", "license", "metadata", "name"}

func isSpecField(k string) bool {
	i := sort.SearchStrings(specFields, k)
	return i < len(specFields) && specFields[i] == k
}
