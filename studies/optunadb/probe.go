package optunadb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// probeTimeout bounds the connection Probe makes.
const probeTimeout = 15 * time.Second

// Probe checks that the storage can be reached before a study writes
// anything: a PostgreSQL server answers (connect and ping, nothing
// written), a SQLite file's directory exists. Its errors name the
// storage as Shown, secrets masked; the driver's own never include the
// password.
func Probe(ctx context.Context, t Target) error {
	if !t.Postgres {
		dir := filepath.Dir(t.Path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("optuna storage %s: directory %s does not exist", t.Shown, dir)
		}
		return nil
	}
	cfg, err := pgx.ParseConfig(t.DSN)
	if err != nil {
		return fmt.Errorf("optuna storage %s: %w", t.Shown, err)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("optuna storage %s: %w", t.Shown, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.Ping(ctx); err != nil {
		return fmt.Errorf("optuna storage %s: %w", t.Shown, err)
	}
	return nil
}
