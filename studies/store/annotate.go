package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Annotate stores what measures t and what the prior predicted for it,
// right after its row is begun or claimed.
func (s *Store) Annotate(ctx context.Context, t Trial) error {
	pred, err := marshalOrNull(t.Prediction != nil, t.Prediction)
	if err != nil {
		return fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	if t.Runner == "" && pred == nil {
		return nil
	}
	_, err = s.db.ExecContext(context.WithoutCancel(ctx), s.bind(`UPDATE trials SET runner=?, prediction=? WHERE number=?`), nullStr(t.Runner), pred, t.Number)
	if err != nil {
		return fmt.Errorf("study %s: record trial %d: %w", s.path, t.Number, err)
	}
	return nil
}

// scanProvenance decodes the runner and prediction columns (schema 6).
func scanProvenance(t *Trial, runner, pred sql.NullString) error {
	t.Runner = runner.String
	if pred.Valid {
		t.Prediction = &Prediction{}
		if err := json.Unmarshal([]byte(pred.String), t.Prediction); err != nil {
			return fmt.Errorf("trial %d prediction: %w", t.Number, err)
		}
	}
	return nil
}
