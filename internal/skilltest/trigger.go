package skilltest

import (
	"strings"

	"github.com/skillrun/skillrun/skills"
)

// runTrigger searches the catalog with each phrasing, as a model's
// skill_search does: a should phrasing must find the case's skill among
// the top Top results, a should_not phrasing must not.
func runTrigger(c *Case, res *Result, catalog []*skills.Skill) {
	if !containsSkill(catalog, c.Skill) {
		catalog = append(append([]*skills.Skill{}, catalog...), c.Skill)
	}
	ix := skills.NewIndex(catalog)
	t := c.Trigger
	rank := func(q string) (int, []string, error) {
		matches, err := ix.Search(q, &skills.SearchOptions{Limit: t.Top})
		if err != nil {
			return 0, nil, err
		}
		var names []string
		at := 0
		for i, m := range matches {
			names = append(names, m.Name)
			if m.Skill == c.Skill && at == 0 {
				at = i + 1
			}
		}
		return at, names, nil
	}
	for _, q := range t.Should {
		at, names, err := rank(q)
		switch {
		case err != nil:
			res.fail("%s: should %q: %v", c.File, q, err)
		case at == 0:
			res.fail("%q does not find %s in the top %d (it finds: %s)", q, c.Skill.Name, t.Top, listOrNone(names))
		}
	}
	for _, q := range t.ShouldNot {
		at, names, err := rank(q)
		switch {
		case err != nil:
			res.fail("%s: should_not %q: %v", c.File, q, err)
		case at > 0:
			res.fail("%q finds %s at rank %d of the top %d, and should not (it finds: %s)", q, c.Skill.Name, at, t.Top, listOrNone(names))
		}
	}
}

func containsSkill(list []*skills.Skill, s *skills.Skill) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}
