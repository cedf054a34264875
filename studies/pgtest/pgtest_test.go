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

// A stopped cluster refuses connections; restarted, it serves the same
// data on the same port.
func TestStopAndRestartKeepThePortAndTheData(t *testing.T) {
	c := StartCluster(t)
	db, err := sql.Open("pgx", c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err == nil {
		t.Fatal("a stopped cluster answers")
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT n FROM kept").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after restart: %d, %v", n, err)
	}
}
