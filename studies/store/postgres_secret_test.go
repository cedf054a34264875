package store

import (
	"context"
	"strings"
	"testing"
)

func TestStorageURLPasswordNeverReachesErrors(t *testing.T) {
	_, err := OpenPostgres(context.Background(), "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1", "x", ReadOnly)
	if err == nil {
		t.Fatal("opened a store on a closed port")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error leaks the password: %v", err)
	}
	if got := Redact("postgres://u:s3cret@h/db"); strings.Contains(got, "s3cret") {
		t.Errorf("Redact = %q", got)
	}
}
