package calibrate

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/space"
)

// FittedCards is the TOML of the target's GPU and model cards as fitted,
// and of every draft whose acceptance the fit moved: each replaces the
// card of its name when read with --cards.
func FittedCards(fitted, base *sim.Cards, t space.Target) ([]byte, error) {
	g, err := fitted.GPU(t.GPU)
	if err != nil {
		return nil, err
	}
	m, err := fitted.Model(t.Model)
	if err != nil {
		return nil, err
	}
	doc := struct {
		GPUs   []sim.GPUCard   `toml:"gpu"`
		Models []sim.ModelCard `toml:"model"`
		Drafts []sim.DraftCard `toml:"draft,omitempty"`
	}{GPUs: []sim.GPUCard{g}, Models: []sim.ModelCard{storedModel(fitted, m)}}
	for i, d := range fitted.Drafts {
		if i < len(base.Drafts) && d.Acceptance != base.Drafts[i].Acceptance {
			doc.Drafts = append(doc.Drafts, d)
		}
	}
	var buf bytes.Buffer
	buf.WriteString("# Written by `servetune calibrate`: cards fitted to a study's measurements.\n")
	if err := toml.NewEncoder(&buf).Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// storedModel is the card as stored: Cards.Model sets FP8 weights for a
// -FP8 name, which must not stick to the card under its own name.
func storedModel(c *sim.Cards, m sim.ModelCard) sim.ModelCard {
	for _, s := range c.Models {
		if strings.EqualFold(s.Name, m.Name) {
			return s
		}
	}
	return m
}

// Print prints the fit: the simulator's error per metric before and
// after, the memory plan's agreement, the factors fitted and those kept;
// n counts the trials or runs (what) it was fitted to.
func Print(w io.Writer, res *calib.Result, n int, what string) {
	fmt.Fprintf(w, "%d %s; simulator error |simulated/measured − 1|, median and max, before → after:\n", n, what)
	for i, b := range res.Before {
		a := res.After[i]
		fmt.Fprintf(w, "  %-36s median %6.1f%% → %5.1f%%   max %6.1f%% → %6.1f%%%s\n", b.Metric,
			calib.Percent(b.Median), calib.Percent(a.Median), calib.Percent(b.Max), calib.Percent(a.Max), refusedNote(b, a))
	}
	if m := res.Memory; m != nil {
		fmt.Fprintf(w, "  %-36s %d → %d of %d configs\n", "started or out of memory as measured", m.Before, m.After, m.Configs)
	}
	fmt.Fprintln(w, "fitted:")
	for _, f := range res.Fitted {
		fmt.Fprintf(w, "  %-44s ×%.3f\n", f.Name, f.Scale)
	}
	if len(res.Fixed) > 0 {
		fmt.Fprintf(w, "not identifiable from these %s, kept: %s\n", what, strings.Join(res.Fixed, "; "))
	}
}

func refusedNote(before, after calib.MetricError) string {
	if before.Refused == 0 && after.Refused == 0 {
		return ""
	}
	return fmt.Sprintf("   (refused by the simulator: %d → %d)", before.Refused, after.Refused)
}
