package space

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A secret in [study] storage is refused in the file, with its line and
// key, and never quoted.
func TestStorageSecretRefusedInSpaceFile(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/storage_*.toml")
	for _, f := range files {
		_, err := Load(t.Context(), f, testOptions())
		var se *Error
		if !errors.As(err, &se) || len(se.Problems) != 1 || se.Problems[0].Key != "study.storage" || se.Problems[0].Line != 3 {
			t.Errorf("%s: %v, want one problem at line 3, study.storage", f, err)
			continue
		}
		if strings.Contains(strings.ToLower(err.Error()), "hunter2") {
			t.Errorf("%s: the error quotes the password: %v", f, err)
		}
	}
	if len(files) < 10 {
		t.Errorf("only %d storage files", len(files))
	}
}
