package space

import (
	"context"
	"math/rand"
	"strings"
	"testing"
)

// gatedOptions gate prefill_tp and decode_instances on disaggregation =
// "pd", as engines.PDGate does.
func gatedOptions() Options {
	o := testOptions()
	o.Gated = func(k string) (string, string, bool) {
		switch k {
		case "prefill_tp", "decode_instances", "prefill_instances", "decode_tp", "prefill_mem_fraction":
			return "disaggregation", "pd", true
		}
		return "", "", false
	}
	return o
}

const gatedSrc = `
[study]
name = "pd"

[target]
model = "m"
gpu = "H100"
gpus = 8
engine = "sglang"

[[objectives]]
metric = "total_tps"
direction = "maximize"
%s
[params.prefill_tp]
values = [1, 2]
`

func parseGated(t *testing.T, extra string) (*Space, error) {
	t.Helper()
	return Parse(context.Background(), "pd.toml", strings.Replace(gatedSrc, "%s", extra, 1), gatedOptions())
}

// A per-side knob gains its gate: it is set exactly on the disaggregated
// configs, without a `when` written by hand.
func TestGatedKnobExistsOnlyBehindItsGate(t *testing.T) {
	sp, err := parseGated(t, "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	var pd, agg int
	for range 200 {
		c := sp.Sample(rng)
		switch {
		case c.String("disaggregation") == "pd" && c.Has("prefill_tp"):
			pd++
		case c.String("disaggregation") == "none" && !c.Has("prefill_tp"):
			agg++
		default:
			t.Fatalf("config %v: prefill_tp outside its gate", c)
		}
	}
	if pd == 0 || agg == 0 {
		t.Fatalf("pd %d, aggregated %d", pd, agg)
	}
}

// A per-side knob in a space without the gate, or whose gate never
// opens, is refused naming file, line and key; so is a baseline setting
// one on an aggregated config.
func TestGatedKnobRefused(t *testing.T) {
	for _, c := range []struct{ name, extra, want string }{
		{"no gate knob", "", `pd.toml:15: params.prefill_tp: exists only when disaggregation = "pd", and this space has no knob disaggregation: add [params.disaggregation] values = ["none", "pd"]`},
		{"gate never opens", "[params.disaggregation]\nvalues = [\"none\"]\n", `params.prefill_tp: exists only when disaggregation = "pd", which params.disaggregation never takes (values: "none")`},
		{"baseline without the gate", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[baseline]\nprefill_tp = 2\n",
			`baseline.prefill_tp: is set, but it exists only when disaggregation = "pd", and this config does not set disaggregation`},
		{"baseline aggregated", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[baseline]\ndisaggregation = \"none\"\nprefill_tp = 2\n",
			`this config sets disaggregation = "none"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseGated(t, c.extra)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Parse = %v\nwant %q", err, c.want)
			}
		})
	}
	if _, err := parseGated(t, "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[baseline]\ndisaggregation = \"pd\"\nprefill_tp = 2\n"); err != nil {
		t.Fatalf("a disaggregated baseline: %v", err)
	}
}
