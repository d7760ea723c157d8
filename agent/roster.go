package agent

import (
	"cmp"
	"log/slog"
	"slices"
	"strings"
)

// A Roster is the agents a session can run, with name collisions resolved by
// precedence. A Roster is immutable once made and safe for concurrent use; the
// definitions it returns are shared and must not be modified.
type Roster struct {
	byName      map[string]*Definition // bare name -> the agent it resolves to
	byQualified map[string]*Definition // "<plugin>:<name>" -> plugin agent
	list        []*Definition
}

// NewRoster returns the set of defs, resolving name collisions:
//   - a plugin's (skill's) agent is reachable only by its qualified name
//     "<plugin>:<name>", never by the bare name: a skill is untrusted
//     and its agents/general.md must not replace the builtin "general"
//     (nor any user agent) with its own prompt and model. Agents of
//     different plugins may share a name; each is its own agent;
//   - bare names are the user's and the builtin agents: a user agent wins
//     over a builtin one of the same name (logged at Info with both
//     files);
//   - otherwise, of two definitions with the same identity the first in
//     defs wins and the other is logged as a warning. So are two plugin
//     agents whose pool keys would collide ("plugin-a-b-c" for agent
//     "b-c" of plugin "a" and agent "c" of plugin "a-b"), since agents
//     must never share state.
//
// A nil logger discards the messages. A nil definition panics.
func NewRoster(logger *slog.Logger, defs ...*Definition) *Roster {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	sorted := slices.Clone(defs)
	for _, d := range sorted {
		if d == nil {
			panic("agent: NewSet given a nil definition")
		}
	}
	// Highest source first; stable, so the first in defs wins among equals.
	slices.SortStableFunc(sorted, func(a, b *Definition) int { return cmp.Compare(b.Source, a.Source) })

	s := &Roster{
		byName:      make(map[string]*Definition, len(sorted)),
		byQualified: make(map[string]*Definition),
	}
	pool := make(map[string]*Definition, len(sorted))
	for _, d := range sorted {
		if d.Source == SourcePlugin {
			if prev, dup := s.byQualified[d.QualifiedName()]; dup {
				logger.Warn("duplicate agent definition ignored; the first wins",
					"agent", d.QualifiedName(), "source", d.Source.String(), "kept", prev.File, "ignored", d.File)
				continue
			}
		} else if cur, taken := s.byName[d.Name]; taken {
			if cur.Source > d.Source {
				logger.Info("agent definition overridden by a higher source",
					"agent", d.Name,
					"winner", cur.File, "winner_source", cur.Source.String(),
					"overridden", d.File, "overridden_source", d.Source.String())
			} else {
				logger.Warn("duplicate agent definition ignored; the first wins",
					"agent", d.Name, "source", d.Source.String(), "kept", cur.File, "ignored", d.File)
			}
			continue
		}
		if prev, clash := pool[d.PoolKey()]; clash {
			logger.Warn("agent definition ignored: its pool key collides with another agent's",
				"agent", d.QualifiedName(), "pool_key", d.PoolKey(), "kept", prev.File, "ignored", d.File)
			continue
		}
		pool[d.PoolKey()] = d
		if d.Source == SourcePlugin {
			s.byQualified[d.QualifiedName()] = d
		} else {
			s.byName[d.Name] = d
		}
		s.list = append(s.list, d)
	}
	slices.SortFunc(s.list, func(a, b *Definition) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Plugin, b.Plugin))
	})
	return s
}

// Lookup returns the agent called name: a bare name is the user's agent
// of that name or else the builtin one (see [NewRoster]), never a plugin's;
// "<plugin>:<name>" names a plugin's agent exactly.
func (s *Roster) Lookup(name string) (*Definition, bool) {
	m := s.byName
	if strings.Contains(name, ":") {
		m = s.byQualified
	}
	d, ok := m[name]
	return d, ok
}

// List returns every agent in the set, sorted by name and then plugin. The
// slice is the caller's; the definitions are shared.
func (s *Roster) List() []*Definition {
	return slices.Clone(s.list)
}
