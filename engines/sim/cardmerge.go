package sim

import (
	"fmt"
	"slices"
	"strings"
)

// merge adds checked cards. An added card replaces the existing card that
// answers to any of its names (name or alias, case-insensitively), so a
// user's card for "meta-llama/Llama-3.1-70B-Instruct" replaces the
// built-in card that has that Hugging Face id as an alias; any other
// existing card answering to one of its names gives that name up (the
// added card owns every name it declares). Each replacement of a card
// under another name is recorded in Replaced.
func (c *Cards) merge(more Cards) {
	var notes []string
	for _, g := range more.GPUs {
		c.GPUs, notes = replaceCard("GPU", c.GPUs, g, gpuNames, func(x GPUCard, drop string) GPUCard {
			x.Aliases = without(x.Aliases, drop)
			return x
		})
		c.Replaced = append(c.Replaced, notes...)
	}
	for _, m := range more.Models {
		c.Models, notes = replaceCard("model", c.Models, m, modelNames, func(x ModelCard, drop string) ModelCard {
			x.Aliases = without(x.Aliases, drop)
			return x
		})
		c.Replaced = append(c.Replaced, notes...)
	}
	for _, d := range more.Drafts {
		c.Drafts, notes = replaceCard("draft", c.Drafts, d, func(x DraftCard) []string { return []string{x.Name} },
			func(x DraftCard, _ string) DraftCard { return x })
		c.Replaced = append(c.Replaced, notes...)
	}
}

func gpuNames(g GPUCard) []string     { return append([]string{g.Name}, g.Aliases...) }
func modelNames(m ModelCard) []string { return append([]string{m.Name}, m.Aliases...) }

// replaceCard puts x in place of the card of xs that answers to x's own
// name, else the first that shares one of its names, and takes the shared
// names from any other (a card whose own name is taken goes); x is
// appended when none shares a name. The notes say which card was replaced
// or lost a name, unless only by x's own name.
func replaceCard[T any](kind string, xs []T, x T, names func(T) []string, drop func(T, string) T) ([]T, []string) {
	mine := names(x)
	target := slices.IndexFunc(xs, func(old T) bool { return len(sharedNames(names(old), mine[:1])) > 0 })
	if target < 0 {
		target = slices.IndexFunc(xs, func(old T) bool { return len(sharedNames(names(old), mine)) > 0 })
	}
	if target < 0 {
		return append(xs, x), nil
	}
	var notes []string
	out := xs[:0:0]
	for i, old := range xs {
		shared := sharedNames(names(old), mine)
		oldName := names(old)[0]
		switch {
		case i == target:
			out = append(out, x)
			if !strings.EqualFold(oldName, mine[0]) {
				notes = append(notes, fmt.Sprintf("%s card %q replaces the card %q (both answer to %q)", kind, mine[0], oldName, shared[0]))
			}
		case len(shared) == 0:
			out = append(out, old)
		case slices.ContainsFunc(shared, func(n string) bool { return strings.EqualFold(n, oldName) }):
			notes = append(notes, fmt.Sprintf("%s card %q replaces the card %q too (both answer to %q)", kind, mine[0], oldName, oldName))
		default:
			for _, n := range shared {
				old = drop(old, n)
			}
			notes = append(notes, fmt.Sprintf("%s card %q takes the name %q from the card %q", kind, mine[0], shared[0], oldName))
			out = append(out, old)
		}
	}
	return out, notes
}

// sharedNames are the names of a that b also has, in a's order.
func sharedNames(a, b []string) []string {
	var out []string
	for _, n := range a {
		if slices.ContainsFunc(b, func(m string) bool { return strings.EqualFold(n, m) }) {
			out = append(out, n)
		}
	}
	return out
}

func without(xs []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(xs), func(a string) bool { return strings.EqualFold(a, drop) })
}
