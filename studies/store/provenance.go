package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
)

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
