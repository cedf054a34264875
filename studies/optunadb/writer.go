package optunadb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// markerKey is the study user attribute that says servetune wrote the
// study: a study of the same name made by Optuna itself is never touched.
const markerKey = "servetune"

// Writer writes one servetune study into an Optuna storage.
type Writer struct {
	db      *db
	sp      *space.Space
	name    string
	studyID int64
}

// Open connects to the storage at t and finds or creates the Optuna study
// named after the servetune study. An Optuna study of that name that
// servetune did not write, or whose objectives differ, is refused.
func Open(ctx context.Context, t Target, sp *space.Space) (*Writer, error) {
	d, err := open(ctx, t)
	if err != nil {
		return nil, err
	}
	w := &Writer{db: d, sp: sp, name: sp.Study.Name}
	if err := w.study(ctx); err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("optuna storage %s, study %q: %w", t.Shown, w.name, err)
	}
	return w, nil
}

// Close closes the storage.
func (w *Writer) Close() error { return w.db.sql.Close() }

// Where is the storage as logs may show it.
func (w *Writer) Where() string { return w.db.shown }

func (w *Writer) study(ctx context.Context) error {
	tx, err := w.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, w.db.bind(`SELECT study_id FROM studies WHERE study_name = ?`), w.name).Scan(&w.studyID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = w.createStudy(ctx, tx)
	case err == nil:
		err = w.checkStudy(ctx, tx)
	}
	if err != nil {
		return err
	}
	if err := w.studyAttrs(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (w *Writer) directions() []string {
	out := make([]string, len(w.sp.Objectives))
	for i, o := range w.sp.Objectives {
		out[i] = strings.ToUpper(string(o.Direction))
	}
	return out
}

func (w *Writer) createStudy(ctx context.Context, tx *sql.Tx) error {
	if err := tx.QueryRowContext(ctx, w.db.bind(`INSERT INTO studies(study_name) VALUES(?) RETURNING study_id`), w.name).Scan(&w.studyID); err != nil {
		return err
	}
	for i, dir := range w.directions() {
		if _, err := tx.ExecContext(ctx, w.db.bind(`INSERT INTO study_directions(direction, study_id, objective) VALUES(?, ?, ?)`), dir, w.studyID, i); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) checkStudy(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, w.db.bind(`SELECT count(*) FROM study_user_attributes WHERE study_id = ? AND key = ?`), w.studyID, markerKey).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("an Optuna study of this name exists and servetune did not write it; pick another storage")
	}
	rows, err := tx.QueryContext(ctx, w.db.bind(`SELECT direction FROM study_directions WHERE study_id = ? ORDER BY objective`), w.studyID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return err
		}
		got = append(got, d)
	}
	if want := w.directions(); strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("it has directions %v and the study now has %v; export to another storage", got, want)
	}
	return rows.Err()
}

// studyAttrs says what the study's values are (Optuna 3.1 has no metric
// names) and marks the study as servetune's.
func (w *Writer) studyAttrs(ctx context.Context, tx *sql.Tx) error {
	objs := make([]string, len(w.sp.Objectives))
	for i, o := range w.sp.Objectives {
		objs[i] = w.sp.ObjectiveProfile(o.Profile) + "/" + o.Metric + " (" + string(o.Direction) + ")"
	}
	attrs := map[string]any{
		markerKey:    map[string]any{"study": w.name, "space_file": w.sp.File},
		"objectives": objs,
		"n_trials":   w.sp.Study.NTrials,
	}
	if len(w.sp.Constraints) > 0 {
		var cs []string
		for _, c := range w.sp.Constraints {
			cs = append(cs, c.Src)
		}
		attrs["constraints"] = cs
	}
	return w.replaceAttrs(ctx, tx, "study_user_attributes", "study_id", w.studyID, attrs)
}

// replaceAttrs makes table's rows for owner exactly attrs.
func (w *Writer) replaceAttrs(ctx context.Context, tx *sql.Tx, table, col string, owner int64, attrs map[string]any) error {
	if _, err := tx.ExecContext(ctx, w.db.bind(`DELETE FROM `+table+` WHERE `+col+` = ?`), owner); err != nil {
		return err
	}
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := json.Marshal(attrs[k])
		if err != nil {
			return fmt.Errorf("attribute %s: %w", k, err)
		}
		if _, err := tx.ExecContext(ctx, w.db.bind(`INSERT INTO `+table+`(`+col+`, key, value_json) VALUES(?, ?, ?)`), owner, k, string(v)); err != nil {
			return err
		}
	}
	return nil
}

// Write upserts the trials in which (all of the study's trials when which
// is nil); all are the study's trials, which fix each knob's
// distribution and each config's central value. A trial in which that
// measured a config again rewrites the config's other measurements too:
// its first holds the central value, which moved.
func (w *Writer) Write(ctx context.Context, all, which []store.Trial) error {
	if which == nil {
		which = all
	}
	ds := distributions(w.sp, all)
	rs := rankedByTrial(w.sp, all)
	tx, err := w.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("optuna storage %s: %w", w.db.shown, err)
	}
	defer tx.Rollback()
	for _, t := range withConfigMates(all, which, rs) {
		if err := w.upsert(ctx, tx, row(w.sp, ds, t, rs[t.Number])); err != nil {
			return fmt.Errorf("optuna storage %s: trial %d: %w", w.db.shown, t.Number, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("optuna storage %s: %w", w.db.shown, err)
	}
	return nil
}

// upsert writes one trial: its row updated in place when the study has
// it (a re-export, a resumed run), its params, values and attributes
// replaced.
func (w *Writer) upsert(ctx context.Context, tx *sql.Tx, r trialRow) error {
	var id int64
	err := tx.QueryRowContext(ctx, w.db.bind(`SELECT trial_id FROM trials WHERE study_id = ? AND number = ?`), w.studyID, r.Number).Scan(&id)
	start, end := w.when(r.Start), w.when(r.End)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = tx.QueryRowContext(ctx, w.db.bind(`INSERT INTO trials(number, study_id, state, datetime_start, datetime_complete) VALUES(?, ?, ?, ?, ?) RETURNING trial_id`),
			r.Number, w.studyID, r.State, start, end).Scan(&id)
	case err == nil:
		_, err = tx.ExecContext(ctx, w.db.bind(`UPDATE trials SET state = ?, datetime_start = ?, datetime_complete = ? WHERE trial_id = ?`), r.State, start, end, id)
	}
	if err != nil {
		return err
	}
	return w.children(ctx, tx, id, r)
}

func (w *Writer) children(ctx context.Context, tx *sql.Tx, id int64, r trialRow) error {
	for _, table := range []string{"trial_params", "trial_values", "trial_intermediate_values"} {
		if _, err := tx.ExecContext(ctx, w.db.bind(`DELETE FROM `+table+` WHERE trial_id = ?`), id); err != nil {
			return err
		}
	}
	for _, p := range r.Params {
		if _, err := tx.ExecContext(ctx, w.db.bind(`INSERT INTO trial_params(trial_id, param_name, param_value, distribution_json) VALUES(?, ?, ?, ?)`), id, p.Name, p.Value, p.Dist); err != nil {
			return err
		}
	}
	for i, v := range r.Values {
		if _, err := tx.ExecContext(ctx, w.db.bind(`INSERT INTO trial_values(trial_id, objective, value, value_type) VALUES(?, ?, ?, 'FINITE')`), id, i, v); err != nil {
			return err
		}
	}
	for i, v := range r.Intermediate {
		if _, err := tx.ExecContext(ctx, w.db.bind(`INSERT INTO trial_intermediate_values(trial_id, step, intermediate_value, intermediate_value_type) VALUES(?, ?, ?, 'FINITE')`), id, i, v); err != nil {
			return err
		}
	}
	if err := w.replaceAttrs(ctx, tx, "trial_user_attributes", "trial_id", id, r.UserAttrs); err != nil {
		return err
	}
	return w.replaceAttrs(ctx, tx, "trial_system_attributes", "trial_id", id, r.SystemAttrs)
}

// when is a time as Optuna stores it: local wall-clock time without a
// zone (Optuna writes datetime.now()), nil for none. SQLite holds it as
// the text SQLAlchemy parses.
func (w *Writer) when(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	l := t.Local()
	if w.db.pg {
		return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
	}
	return l.Format("2006-01-02 15:04:05.000000")
}
