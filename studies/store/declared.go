package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/servetune/servetune/space"
)

// metaEngines is the study metadata key holding the declared engines a
// study ran with, so that show and best read it without its engines files.
const metaEngines = "declared_engines"

// StoredEngines reads what a run recorded under metaEngines (nil if none).
func StoredEngines(ctx context.Context, store *Store) (map[string]space.EngineDecl, error) {
	raw, err := store.Meta(ctx, metaEngines)
	if err != nil || raw == "" {
		return nil, err
	}
	var out map[string]space.EngineDecl
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("study %s: %s: %w", store.Path(), metaEngines, err)
	}
	return out, nil
}

// RecordEngines stores the run's declared engines under metaEngines.
func RecordEngines(ctx context.Context, store *Store, sp *space.Space) error {
	if len(sp.Target.Declared) == 0 {
		return nil
	}
	b, err := json.Marshal(sp.Target.Declared)
	if err != nil {
		return err
	}
	return store.SetMeta(ctx, metaEngines, string(b))
}
