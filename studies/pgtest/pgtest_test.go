package pgtest

import (
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
)

func TestStartServesQueries(t *testing.T) {
	db, err := sql.Open("pgx", Start(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT 1+1").Scan(&n); err != nil || n != 2 {
		t.Fatalf("SELECT 1+1 = %d, %v", n, err)
	}
}
