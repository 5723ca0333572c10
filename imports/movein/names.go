package movein

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// UniqueNames gives every category group and category a name no other one has, renaming
// with a notice where two share one. Tally makes groups parent categories, and a family's
// category names are unique, so a hidden "Dining" beside an active one, or a group called
// "Income" holding a category called "Income", would otherwise merge into one.
//
// Who keeps a name, first to last: active categories, the household's active groups, hidden
// categories, hidden groups, then the groups the source app made itself. Within each, the
// source's order. Renamed ones say why they differ: "Dining (hidden)", "Income (group)",
// "Misc (Everyday)" for a category of the group Everyday.
func (b *Budget) UniqueNames() {
	groups := make(map[string]*CategoryGroup, len(b.Groups))
	for i := range b.Groups {
		groups[b.Groups[i].ID] = &b.Groups[i]
	}
	type named struct {
		name         *string
		tier         int
		entity, id   string
		holder, mark string // who it is in a notice; what a new name adds
	}
	var all []named
	for i := range b.Categories {
		c := &b.Categories[i]
		g := groups[c.GroupID]
		n := named{name: &c.Name, entity: EntityCategory, id: c.ID, holder: "an active category"}
		switch {
		case c.Hidden || (g != nil && g.Hidden):
			n.tier, n.holder, n.mark = 2, "a hidden category", "hidden"
		case g != nil && strings.TrimSpace(g.Name) != "":
			n.mark = strings.TrimSpace(g.Name)
		default:
			n.mark = "category"
		}
		all = append(all, n)
	}
	for i := range b.Groups {
		g := &b.Groups[i]
		n := named{name: &g.Name, tier: 1, entity: EntityGroup, id: g.ID, holder: "a group", mark: "group"}
		switch {
		case g.Builtin:
			n.tier = 4
		case g.Hidden:
			n.tier, n.holder = 3, "a hidden group"
		}
		all = append(all, n)
	}
	slices.SortStableFunc(all, func(a, b named) int { return cmp.Compare(a.tier, b.tier) })

	taken := make(map[string]string, len(all)) // a name → who holds it
	for _, n := range all {
		was := strings.TrimSpace(*n.name)
		name := was
		if name == "" {
			name = "Unnamed " + n.entity
		}
		if holder, clash := taken[name]; clash {
			name = free(taken, fmt.Sprintf("%s (%s)", name, n.mark))
			b.Note(Renamed, n.entity, n.id, was, "%s is called %q too, and Tally's category names are unique: kept as %q",
				holder, was, name)
		} else if was == "" {
			name = free(taken, name)
			b.Note(Renamed, n.entity, n.id, was, "it has no name: kept as %q", name)
		}
		*n.name = name
		taken[name] = n.holder
	}
}

// free returns name, or name with the first number from 2 that makes it one nobody holds.
func free(taken map[string]string, name string) string {
	if _, ok := taken[name]; !ok {
		return name
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s %d", name, i); taken[n] == "" {
			return n
		}
	}
}
