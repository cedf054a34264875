package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/servetune/servetune/engines"
)

// Trials returns every trial in number order.
func (s *Store) Trials(ctx context.Context) ([]Trial, error) {
	reason, replies, ran, worker, runner := "reason", "replies", "ran, fingerprint", "worker, devices, lease_until", "runner, prediction"
	if s.schema < 2 {
		reason = "NULL"
	}
	if s.schema < 3 {
		replies = "NULL"
	}
	if s.schema < 4 {
		ran = "NULL, NULL"
	}
	if s.schema < 5 {
		worker = "NULL, NULL, NULL"
	}
	if s.schema < 6 {
		runner = "NULL, NULL"
	}
	if s.schema < 7 {
		runner += ", NULL"
	} else {
		runner += ", intervals"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT number, state, origin, config, metrics, failure, `+reason+`, log_path, started_at, ended_at, gpu_seconds, retry_of, reused_from, intermediate, `+replies+`, `+ran+`, `+worker+`, `+runner+` FROM trials ORDER BY number`)
	if err != nil {
		return nil, fmt.Errorf("study %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Trial
	for rows.Next() {
		t, err := scanTrial(rows)
		if err != nil {
			return nil, fmt.Errorf("study %s: %w", s.path, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func scanTrial(rows *sql.Rows) (Trial, error) {
	var t Trial
	var cfg, started string
	var metrics, failure, reason, logPath, ended, inter, replies, ran, fp, worker, devices, lease, runner, pred, ivs sql.NullString
	var retryOf, reusedFrom sql.NullInt64
	if err := rows.Scan(&t.Number, &t.State, &t.Origin, &cfg, &metrics, &failure, &reason, &logPath, &started, &ended, &t.GPUSeconds, &retryOf, &reusedFrom, &inter, &replies, &ran, &fp, &worker, &devices, &lease, &runner, &pred, &ivs); err != nil {
		return t, err
	}
	if err := scanProvenance(&t, runner, pred); err != nil {
		return t, err
	}
	if ivs.Valid {
		if err := json.Unmarshal([]byte(ivs.String), &t.Intervals); err != nil {
			return t, fmt.Errorf("trial %d intervals: %w", t.Number, err)
		}
	}
	if err := scanEnvironment(&t, ran, fp); err != nil {
		return t, err
	}
	if devices.Valid {
		if err := json.Unmarshal([]byte(devices.String), &t.Devices); err != nil {
			return t, fmt.Errorf("trial %d devices: %w", t.Number, err)
		}
	}
	if replies.Valid {
		if err := json.Unmarshal([]byte(replies.String), &t.Replies); err != nil {
			return t, fmt.Errorf("trial %d replies: %w", t.Number, err)
		}
	}
	if err := json.Unmarshal([]byte(cfg), &t.Config); err != nil {
		return t, fmt.Errorf("trial %d config: %w", t.Number, err)
	}
	if metrics.Valid && metrics.String != "null" {
		if err := json.Unmarshal([]byte(metrics.String), &t.Metrics); err != nil {
			return t, fmt.Errorf("trial %d metrics: %w", t.Number, err)
		}
	}
	if failure.Valid {
		f, err := failureOf(failure.String)
		if err != nil {
			return t, fmt.Errorf("trial %d failure: %w", t.Number, err)
		}
		t.Failure = f
	}
	if inter.Valid {
		var cs []StoredCheckpoint
		if err := json.Unmarshal([]byte(inter.String), &cs); err != nil {
			return t, fmt.Errorf("trial %d checkpoints: %w", t.Number, err)
		}
		t.Intermediate = fromStored(cs)
	}
	t.Reason, t.LogPath, t.Worker = reason.String, logPath.String, worker.String
	t.Start, _ = time.Parse(time.RFC3339Nano, started)
	if ended.Valid {
		t.End, _ = time.Parse(time.RFC3339Nano, ended.String)
	}
	t.RetryOf, t.ReusedFrom = int(retryOf.Int64), int(reusedFrom.Int64)
	if lease.Valid {
		t.lease, _ = time.Parse(time.RFC3339Nano, lease.String)
	}
	upgradeOutcome(&t)
	return t, nil
}

// Studies written before outcomes had one vocabulary stored rule
// violations, prunes and interruptions as failure classes; they read as
// today's states and reasons.
const (
	legacyRule        engines.Class = "infeasible"
	legacyPruned      engines.Class = "pruned"
	legacyInterrupted engines.Class = "interrupted"
)

func upgradeOutcome(t *Trial) {
	if t.Failure == nil {
		return
	}
	switch t.Failure.Class {
	case legacyInterrupted:
		t.State = Interrupted
	case legacyRule, legacyPruned:
	default:
		return
	}
	if t.Reason == "" {
		t.Reason = t.Failure.Message
	}
	t.Failure = nil
}

// scanEnvironment decodes the ran and fingerprint columns (schema 3).
func scanEnvironment(t *Trial, ran, fp sql.NullString) error {
	if ran.Valid {
		t.Ran = &engines.Command{}
		if err := json.Unmarshal([]byte(ran.String), t.Ran); err != nil {
			return fmt.Errorf("trial %d command: %w", t.Number, err)
		}
	}
	if fp.Valid {
		t.Fingerprint = &engines.Fingerprint{}
		if err := json.Unmarshal([]byte(fp.String), t.Fingerprint); err != nil {
			return fmt.Errorf("trial %d fingerprint: %w", t.Number, err)
		}
	}
	return nil
}
