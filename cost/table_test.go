package cost

import (
	"maps"
	"slices"
	"testing"

	"github.com/servetune/servetune/bench"
)

// What cost produces is in the metric table as cost's, and every row the
// table gives cost is produced: the table is where the space validator
// and the report read these names, units and directions.
func TestMetricTableHasWhatCostProduces(t *testing.T) {
	values := map[string]float64{bench.MetricOutputTPS: 1000, bench.MetricTotalTPS: 3000, bench.MetricMaxRateUnderSLO: 4}
	got := Metrics(values, 2, 3.5)
	maps.Copy(got, Fleet(values, 2, 10))
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if m, ok := bench.MetricOf(name); !ok || m.Producer != bench.ByCost {
			t.Errorf("cost produces %s; the table has %+v, %v", name, m, ok)
		}
	}
	for _, name := range bench.MetricNames() {
		if m, _ := bench.MetricOf(name); m.Producer == bench.ByCost {
			if _, ok := got[name]; !ok {
				t.Errorf("the table says cost produces %s, but it does not", name)
			}
		}
	}
}
