package studies

import (
	"fmt"
	"path/filepath"

	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search/prior"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// KeptPredictions are the full predictions the study's prior kept in its
// directory (simprior.File), by search.ConfigKey, as the report's
// neighbourhoods read them (Report.WithPredictions); nil when the study
// had no prior or its directory holds no file (a PostgreSQL study's
// worker kept it elsewhere).
func KeptPredictions(sp *space.Space, dir studydir.Dir) (map[string]store.Prediction, error) {
	kept, err := prior.ReadKept(sp, filepath.Join(dir.Path(), simprior.File))
	if err != nil {
		return nil, fmt.Errorf("study %s: %w", dir.Name(), err)
	}
	if kept == nil {
		return nil, nil
	}
	out := make(map[string]store.Prediction, len(kept))
	for k, p := range kept {
		out[k] = store.Prediction{Values: p.Values, Feasible: p.Feasible}
	}
	return out, nil
}
