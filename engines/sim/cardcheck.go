package sim

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/servetune/servetune/internal/suggest"
)

// A card's numbers are sizes, counts, rates and factors: none is negative,
// none infinite, and none beyond maxCardNumber (a typo's extra zeros would
// otherwise reach the simulator's arithmetic, where products of layers,
// hidden and context overflow). Every field is checked, whatever the
// card's shape, so a sign or an infinity in a field the card's other
// checks do not read cannot load.
const maxCardNumber = 1e9

// numberProblem is the first number field of a card (a struct of
// toml-tagged fields) that is negative, not finite or too large.
func numberProblem(card any) (key, msg string) {
	v := reflect.ValueOf(card)
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		var f float64
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Float64:
			f = fv.Float()
		case reflect.Int, reflect.Int64:
			f = float64(fv.Int())
		default:
			continue
		}
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			return tag, fmt.Sprintf("must be a finite number, not %v", f)
		case f < 0:
			return tag, fmt.Sprintf("cannot be negative (%v)", f)
		case f > maxCardNumber:
			return tag, fmt.Sprintf("is %v, more than the %.0e a card's number may be", f, maxCardNumber)
		}
	}
	return "", ""
}

// attentions are the attention kinds the simulator models.
var attentions = []string{"MHA", "GQA", "MLA"}

// weightDtype is a checkpoint weight type: 16-bit, FP8, or a quantised
// integer or float format of a few bits (weight_bits gives its size).
var weightDtype = regexp.MustCompile(`^(bf16|fp16|fp8|fp4|fp6|int[2-8])$`)

// modelEnumProblem checks a model card's enumerated and bounded fields.
func (m ModelCard) enumProblem() (key, msg string) {
	switch {
	case m.Attention != "" && !slices.Contains(attentions, m.Attention):
		return "attention", fmt.Sprintf("must be MHA, GQA or MLA, not %q%s", m.Attention, suggest.Hint(m.Attention, attentions))
	case m.WeightDtype != "" && !weightDtype.MatchString(m.WeightDtype):
		return "weight_dtype", fmt.Sprintf("must be bf16, fp8 or a quantised int4, int8, fp4 (intN, fpN), not %q%s",
			m.WeightDtype, suggest.Hint(m.WeightDtype, []string{"bf16", "fp16", "fp8", "fp4", "int4", "int8"}))
	case m.MTPAcceptance > 1:
		return "mtp_acceptance", fmt.Sprintf("is a per-token rate in [0, 1], not %v", m.MTPAcceptance)
	case m.Heads > 0 && m.KVHeads > m.Heads:
		return "kv_heads", fmt.Sprintf("%d is more than heads (%d)", m.KVHeads, m.Heads)
	case m.Experts > 0 && m.TopK > m.Experts:
		return "top_k", fmt.Sprintf("%d is more than experts (%d)", m.TopK, m.Experts)
	case m.MoELayers > m.Layers:
		return "moe_layers", fmt.Sprintf("%d is more than layers (%d)", m.MoELayers, m.Layers)
	}
	return "", ""
}

func (d DraftCard) problem() (key, msg string) {
	if key, msg := numberProblem(d); key != "" {
		return key, msg
	}
	switch {
	case d.Name == "":
		return "name", "is required"
	case !(d.ParamsB > 0):
		return "params_b", "is required and must be positive"
	case d.Acceptance > 1:
		return "acceptance", fmt.Sprintf("is a per-token rate in [0, 1], not %v", d.Acceptance)
	}
	return "", ""
}

// cardNames lists a card's name and aliases, for duplicate detection.
type cardNames struct {
	kind, key string // "gpu", "gpu[1]"
	names     []string
}

// duplicateProblem finds two cards of one kind in the same file that
// share a name or alias: which one the simulator would use is not
// something the file says, so both are named.
func duplicateProblem(cards []cardNames, lines map[string]int) *CardFileError {
	seen := map[string]cardNames{}
	for _, c := range cards {
		for _, n := range c.names {
			id := c.kind + "\x00" + strings.ToLower(n)
			if n == "" {
				continue
			}
			if first, ok := seen[id]; ok && first.key != c.key {
				return &CardFileError{Line: lineOf(lines, c.key), Key: c.key + ".name",
					Msg: fmt.Sprintf("%q is defined twice: at line %d (%s) and here; keep one %s card per name", n, lineOf(lines, first.key), first.key, c.kind)}
			}
			seen[id] = c
		}
	}
	return nil
}

// fileCardNames lists the cards of a file with their keys.
func fileCardNames(more Cards) []cardNames {
	var out []cardNames
	for i, g := range more.GPUs {
		out = append(out, cardNames{"gpu", fmt.Sprintf("gpu[%d]", i), append([]string{g.Name}, g.Aliases...)})
	}
	for i, m := range more.Models {
		out = append(out, cardNames{"model", fmt.Sprintf("model[%d]", i), append([]string{m.Name}, m.Aliases...)})
	}
	for i, d := range more.Drafts {
		out = append(out, cardNames{"draft", fmt.Sprintf("draft[%d]", i), []string{d.Name}})
	}
	return out
}
