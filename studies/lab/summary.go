package lab

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// marks are the trial counts the summary reports.
func marks() []int { return []int{10, 20, 30, 40, 60} }

// Row is one sampler's medians over seeds.
type Row struct {
	Sampler string `json:"sampler"`
	// Best[i] is the median true best after marks()[i] trials.
	Best []float64 `json:"best"`
	// Gap30 is the median relative gap to the optimum at 30 trials.
	Gap30 float64 `json:"gap_at_30"`
	// Trials is the median number of counted trials a study ran.
	Trials float64 `json:"trials"`
	// GPUHours is the median GPU time of a whole study.
	GPUHours float64 `json:"gpu_hours"`
	// ToGreedy is the median number of trials needed to reach the greedy
	// baseline's final best of the same seed (NaN when never).
	ToGreedy float64 `json:"trials_to_greedy,omitempty"`
	// HV40 is the median hypervolume ratio to the true front at 40 trials.
	HV40 float64 `json:"hv_at_40,omitempty"`
	// ToExpert is the median GPU-hours until the reported best reaches
	// the reality value of the seed report's recommended config.
	ToExpert float64 `json:"gpu_hours_to_expert,omitempty"`
	// Pruned and FalsePrunes are totals over seeds.
	Pruned      int `json:"pruned"`
	FalsePrunes int `json:"false_prunes"`
}

// Summarize reduces the runs to one row per sampler.
func (r *Result) Summarize() []Row {
	obj := r.Objectives[0]
	greedy := map[int]Run{}
	for _, run := range r.Runs {
		if run.Sampler == "greedy" {
			greedy[run.Seed] = run
		}
	}
	var rows []Row
	for _, s := range r.samplers() {
		row := Row{Sampler: s}
		var gaps, trials, gpu, toGreedy, hv, toExpert []float64
		best := make([][]float64, len(marks()))
		for _, run := range r.Runs {
			if run.Sampler != s {
				continue
			}
			for i, k := range marks() {
				best[i] = append(best[i], at(run.Best, k))
			}
			opt := r.Truth.Optimum
			if run.Optimum != 0 {
				opt = run.Optimum
			}
			gaps = append(gaps, gap(at(run.Best, 30), opt, obj.Direction == "minimize"))
			trials = append(trials, float64(len(run.Best)))
			gpu = append(gpu, last(run.GPUHours))
			if g, ok := greedy[run.Seed]; ok {
				toGreedy = append(toGreedy, reach(run.Best, last(g.Best), obj.Direction == "minimize"))
			}
			if len(run.HV) > 0 {
				hv = append(hv, at(run.HV, 40))
			}
			if !math.IsNaN(run.ToExpert) {
				toExpert = append(toExpert, run.ToExpert)
			}
			row.Pruned += run.Pruned
			row.FalsePrunes += run.FalsePrunes
		}
		for i := range marks() {
			row.Best = append(row.Best, median(best[i]))
		}
		row.Gap30, row.Trials, row.GPUHours = median(gaps), median(trials), median(gpu)
		row.ToGreedy, row.HV40, row.ToExpert = medianInf(toGreedy), median(hv), medianInf(toExpert)
		rows = append(rows, row)
	}
	return rows
}

func (r *Result) samplers() []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		if !seen[run.Sampler] {
			seen[run.Sampler] = true
			out = append(out, run.Sampler)
		}
	}
	return out
}

// at is the value after k trials (the last one when the study was shorter).
func at(xs []float64, k int) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	if k > len(xs) {
		k = len(xs)
	}
	return xs[k-1]
}

func gap(v, opt float64, minimize bool) float64 {
	if minimize {
		return (v - opt) / math.Abs(opt)
	}
	return (opt - v) / math.Abs(opt)
}

// reach is the first trial count at which the curve is at least as good as
// target, or +Inf.
func reach(curve []float64, target float64, minimize bool) float64 {
	for i, v := range curve {
		if (minimize && v <= target) || (!minimize && v >= target) {
			return float64(i + 1)
		}
	}
	return math.Inf(1)
}

// medianInf is the median where +Inf (never reached) sorts last.
func medianInf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return median(xs)
}

// Markdown writes the summary table.
func (r *Result) Markdown(w io.Writer) {
	obj := r.Objectives[0]
	o := r.Options
	fmt.Fprintf(w, "### %s: %s (%s)", r.Landscape, obj.Metric, obj.Direction)
	if len(r.Objectives) > 1 {
		fmt.Fprintf(w, " + %s (%s), hypervolume", r.Objectives[1].Metric, r.Objectives[1].Direction)
	}
	prune := "off"
	if o.Prune {
		prune = fmt.Sprintf("margin %g", o.PruneMargin)
		if o.PruneMargin == 0 {
			prune = fmt.Sprintf("margin %g", search.DefaultPruneRule().Margin)
		}
	}
	fmt.Fprintf(w, "\n\n%s, noise CV %.2f (per metric, heavy-tailed, drifting), %d trials, pruning %s, feasibility learning=%v. ",
		fmtSeeds(o), o.NoiseCV, o.Trials, prune, !o.NoFeasibility)
	if r.perSeed() {
		fmt.Fprint(w, "Each seed against its own reality")
		if r.HeldOut != "" {
			fmt.Fprintf(w, " with held-out error %s", r.HeldOut)
		}
		fmt.Fprint(w, "; the last seed's optimum")
	} else {
		fmt.Fprint(w, "True optimum")
	}
	fmt.Fprintf(w, " %.4g over %d grid points, %d feasible", r.Truth.Optimum, r.Truth.Points, r.Truth.Feasible)
	if r.Truth.FrontHV > 0 {
		fmt.Fprintf(w, "; true front hypervolume %.4g (reference point %v)", r.Truth.FrontHV, fmtVec(r.Truth.Ref))
	}
	fmt.Fprint(w, ".\n\n| sampler |")
	for _, k := range marks() {
		fmt.Fprintf(w, " best@%d |", k)
	}
	fmt.Fprint(w, " gap@30 | trials | GPU-h | trials to greedy's best | GPU-h to expert | HV@40 | pruned (false) |\n|---|")
	fmt.Fprint(w, strings.Repeat("---|", len(marks())+7), "\n")
	for _, row := range r.Summarize() {
		fmt.Fprintf(w, "| %s |", row.Sampler)
		for _, b := range row.Best {
			fmt.Fprintf(w, " %.4g |", b)
		}
		fmt.Fprintf(w, " %.1f%% | %.0f | %.1f | %s | %s | %s | %d (%d) |\n", row.Gap30*100, row.Trials, row.GPUHours, fmtTrials(row.ToGreedy), fmtHours(row.ToExpert), fmtRatio(row.HV40), row.Pruned, row.FalsePrunes)
	}
	writeHeadlines(w, r.Headlines())
}

// writeHeadlines writes the figures that can fail as a second table.
func writeHeadlines(w io.Writer, hs []Headline) {
	fmt.Fprint(w, "\nGap to each seed's reality optimum, median / worst seed (none: no complete trial yet); GPU-hours until the reported best is within 5% of it; the expert's config is secondary; the seeds whose reported best is truly within the report's stated uncertainty (its 95% interval, search.HalfWidth) of the best config they measured, and how far below it; the seeds whose reported config's true value lies within that interval about the value the report states.\n\n| sampler |")
	n := 0
	if len(hs) > 0 {
		n = len(hs[0].Gaps)
	}
	for _, k := range headlineMarks()[:n] {
		fmt.Fprintf(w, " gap@%d |", k)
	}
	fmt.Fprint(w, " GPU-h to within 5% (seeds never) | HV@40 (worst) | GPU-h to expert | reported within noise of best measured | its gap median / worst | its stated interval holds its truth |\n|---|")
	fmt.Fprint(w, strings.Repeat("---|", n+6), "\n")
	for _, h := range hs {
		fmt.Fprintf(w, "| %s |", h.Sampler)
		for _, g := range h.Gaps {
			fmt.Fprintf(w, " %s / %s |", fmtGap(g.Median), fmtGap(g.Worst))
		}
		fmt.Fprintf(w, " %s (%d of %d) | %s |", fmtOpt(h.ToWithin, "%.1f", "never"), h.Never, h.Seeds, fmtHV(h))
		fmt.Fprintf(w, " %s | %s | %s / %s | %s |\n", fmtOpt(h.ToExpert, "%.1f", "-"), fmtShare(h.Confirmed, h.ConfirmSeeds), fmtGap(h.ConfirmGap.Median), fmtGap(h.ConfirmGap.Worst),
			fmtShare(h.Covered, h.ConfirmSeeds))
	}
}

// fmtShare is "k of n (p%)", "-" of none.
func fmtShare(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d of %d (%.0f%%)", k, n, 100*float64(k)/float64(n))
}

func fmtGap(g *float64) string {
	if g == nil {
		return "none"
	}
	return fmt.Sprintf("%.1f%%", *g*100)
}

func fmtHV(h Headline) string {
	if h.HV40 == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%s)", *h.HV40*100, fmtOpt(h.HV40Worst, "%.1f%%", "-"))
}

// fmtOpt formats a present figure, or says why it is absent.
func fmtOpt(x *float64, format, absent string) string {
	if x == nil {
		return absent
	}
	v := *x
	if strings.HasSuffix(format, "%%") {
		v *= 100
	}
	return fmt.Sprintf(format, v)
}

func fmtTrials(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "never"
	}
	return fmt.Sprintf("%.0f", x)
}

func fmtHours(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "never"
	}
	return fmt.Sprintf("%.1f", x)
}

func fmtRatio(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", x*100)
}

func fmtVec(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.4g", x)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// headlineMarks are the trial counts the headline gaps are reported at.
func headlineMarks() []int { return []int{10, 20, 30, 40} }

// within is the tolerance of the headline's "GPU-hours to within 5% of
// the reality optimum".
const within = 0.05

// Headline is one sampler's figures that can fail: the gap to each
// seed's reality optimum, not to a config the prior may already beat.
// Undefined figures are absent (nil), never NaN.
type Headline struct {
	Sampler string    `json:"sampler"`
	Gaps    []GapStat `json:"gaps"`
	// ToWithin is the median GPU-hours until the reported best is within
	// 5% of the reality optimum (nil when the median seed never gets
	// there); Never counts the seeds that never do.
	ToWithin *float64 `json:"gpu_hours_to_within_5pct,omitempty"`
	Never    int      `json:"never_within_5pct"`
	// HV40 and HV40Worst are the median and lowest two-objective
	// hypervolume ratio at 40 trials (nil on one objective).
	HV40      *float64 `json:"hv_at_40,omitempty"`
	HV40Worst *float64 `json:"hv_at_40_worst,omitempty"`
	// ToExpert is the secondary row: median GPU-hours to the seed
	// report's config (nil without one, or when the median seed never
	// reaches it).
	ToExpert *float64 `json:"gpu_hours_to_expert,omitempty"`
	Seeds    int      `json:"seeds"`
	// Confirmed counts the seeds whose reported best is within the
	// report's stated noise of the best config measured, of
	// ConfirmSeeds (the seeds that report a best); ConfirmGap is the
	// median and worst of how far the reported config truly is below
	// the best measured (ConfirmCheck).
	Confirmed    int     `json:"confirmed_within_noise"`
	ConfirmSeeds int     `json:"confirm_seeds"`
	ConfirmGap   GapStat `json:"confirm_gap"`
	// Covered counts the seeds, of ConfirmSeeds, whose reported config's
	// true value lies within the 95% interval the report states about it.
	Covered int `json:"interval_covers"`
}

// GapStat is the relative gap to the reality optimum after Trials
// trials over seeds. A seed with no complete trial by then has no
// reported best: it counts in NoBest and ranks below every other seed,
// so Worst is nil whenever NoBest > 0 (and Median when it lands there).
type GapStat struct {
	Trials int      `json:"trials"`
	Median *float64 `json:"median,omitempty"`
	Worst  *float64 `json:"worst,omitempty"`
	NoBest int      `json:"no_best,omitempty"`
}

// Headlines reduces the runs to one headline per sampler.
func (r *Result) Headlines() []Headline {
	minimize := r.Objectives[0].Direction == space.Minimize
	var out []Headline
	for _, s := range r.samplers() {
		var runs []Run
		for _, run := range r.Runs {
			if run.Sampler == s {
				runs = append(runs, run)
			}
		}
		out = append(out, headline(s, runs, r.Truth.Optimum, minimize, r.Options.Trials))
	}
	return out
}

// headline is one sampler's figures over its runs; optimum is the
// reality optimum of runs that carry none of their own. Gaps are reported
// at the marks a study of trials trials reaches (all when 0): a shorter
// study's last value is no figure at 40.
func headline(sampler string, runs []Run, optimum float64, minimize bool, trials int) Headline {
	h := Headline{Sampler: sampler, Seeds: len(runs)}
	var hours, hv, expert []float64
	for _, run := range runs {
		opt := runOptimum(run, optimum)
		hours = append(hours, hoursToWithin(run, opt, within, minimize))
		if len(run.HV) > 0 && (trials == 0 || trials >= 40) {
			hv = append(hv, at(run.HV, 40))
		}
		if !math.IsNaN(run.ToExpert) {
			expert = append(expert, run.ToExpert)
		}
	}
	for _, k := range headlineMarks() {
		if trials > 0 && k > trials {
			break
		}
		gaps := make([]float64, len(runs))
		for i, run := range runs {
			gaps[i] = gapAt(run.Best, k, runOptimum(run, optimum), minimize)
		}
		h.Gaps = append(h.Gaps, gapStat(k, gaps))
	}
	h.Confirmed, h.Covered, h.ConfirmSeeds, h.ConfirmGap = confirmStats(runs)
	h.ToWithin, h.Never = medianFinite(hours), countInf(hours)
	h.ToExpert = medianFinite(expert)
	if len(hv) > 0 {
		h.HV40, h.HV40Worst = medianFinite(hv), finite(slices.Min(hv))
	}
	return h
}

func runOptimum(run Run, optimum float64) float64 {
	if run.Optimum != 0 {
		return run.Optimum
	}
	return optimum
}

// gapAt is the relative gap of the reported best after k trials (+Inf
// when nothing is reported by then: no config is worse than any config).
func gapAt(best []float64, k int, optimum float64, minimize bool) float64 {
	v := at(best, k)
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return gap(v, optimum, minimize)
}

// gapStat is the median and worst of per-seed gaps (+Inf: no best).
func gapStat(trials int, gaps []float64) GapStat {
	s := GapStat{Trials: trials, NoBest: countInf(gaps)}
	if len(gaps) == 0 {
		return s
	}
	s.Median, s.Worst = medianFinite(gaps), finite(slices.Max(gaps))
	return s
}

// hoursToWithin is the GPU time at the first trial whose reported best is
// within tol of the optimum (+Inf when never).
func hoursToWithin(run Run, optimum, tol float64, minimize bool) float64 {
	for i, b := range run.Best {
		if !math.IsNaN(b) && gap(b, optimum, minimize) <= tol+1e-12 && i < len(run.GPUHours) {
			return run.GPUHours[i]
		}
	}
	return math.Inf(1)
}

// medianFinite is the median with +Inf (never) ranked last; nil when
// there is nothing to take the median of or it lands on a never.
func medianFinite(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	return finite(median(xs))
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func countInf(xs []float64) int {
	n := 0
	for _, x := range xs {
		if math.IsInf(x, 1) {
			n++
		}
	}
	return n
}

// fmtSeeds counts the seeds, and names them when they do not start at 1.
func fmtSeeds(o Options) string {
	if first, last := o.seedRange(); first > 1 {
		return fmt.Sprintf("%d seeds (%d-%d)", o.Seeds, first, last)
	}
	return fmt.Sprintf("%d seeds", o.Seeds)
}

// perSeed reports whether the runs were scored against realities of
// their own (EvaluatePerturbed).
func (r *Result) perSeed() bool {
	for _, run := range r.Runs {
		if run.Optimum != 0 {
			return true
		}
	}
	return false
}

// confirmStats counts the runs whose reported best is within noise of the
// best config they measured, of those that report one, with the spread
// of the true gap between the two.
func confirmStats(runs []Run) (within, covered, seeds int, gaps GapStat) {
	var gs []float64
	for _, run := range runs {
		if c := run.Confirm; c != nil {
			seeds++
			gs = append(gs, c.Gap)
			if c.Within {
				within++
			}
			if c.Covered {
				covered++
			}
		}
	}
	return within, covered, seeds, gapStat(0, gs)
}
