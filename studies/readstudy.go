package studies

import (
	"context"
	"fmt"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// OpenStudy reads a study without writing to it.
func OpenStudy(ctx context.Context, d studydir.Dir) (*space.Space, []store.Trial, error) {
	path := d.DB()
	st, err := d.OpenReadOnly(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	sp, ts, err := ReadStudy(ctx, st, path)
	store.MarkHolderGone(ts, time.Now(), d.LivenessOf())
	return sp, ts, err
}

// ReadStudy reads a study's space and trials from its store.
func ReadStudy(ctx context.Context, st *store.Store, path string) (*space.Space, []store.Trial, error) {
	src, err := st.Meta(ctx, "space")
	if err != nil {
		return nil, nil, err
	}
	file, _ := st.Meta(ctx, "space_file")
	declared, err := store.StoredEngines(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	sp, err := ParseStoredSpace(ctx, file, src, declared)
	if err != nil {
		return nil, nil, fmt.Errorf("study %s: stored space: %w", path, err)
	}
	// The cards it simulated on, so calibrate and the prior see them.
	if sp.Target.Sim.CardsSource, err = st.Cards(ctx); err != nil {
		return nil, nil, err
	}
	trials, err := st.Trials(ctx)
	FillRunner(sp, trials) // studies from before runners were recorded
	return sp, trials, err
}

// ParseStoredSpace re-reads the space a study was created with, knowing
// the engines it declared (studies.RecordEngines stored them when it ran).
func ParseStoredSpace(ctx context.Context, file, src string, declared map[string]space.EngineDecl) (*space.Space, error) {
	opt := SpaceOptions(CardsWith(""))
	opt.Declared = declared
	opt.NodesGiven = true // the run that stored it may have had --nodes
	opt.NoDatasets = true // its dataset files may be on another machine
	opt.CheckTarget = nil // its trials ran; its cards are stored with it
	return space.Parse(ctx, file, src, opt)
}
