package studies

import (
	"fmt"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/store/pgurl"
)

// StorageURL is the shared storage a command uses: --storage (flag),
// then the environment's (envValue, named envName), then the space's
// [study] storage when it is PostgreSQL ("" is a local study.db). A
// value that does not parse is an error naming where it came from.
func StorageURL(flag, envValue, envName string, sp *space.Space) (string, error) {
	from, v := "--storage", flag
	if v == "" {
		from, v = envName, envValue
	}
	if v == "" && sp != nil && store.IsPostgres(sp.Study.Storage) {
		from, v = sp.File+": study.storage", sp.Study.Storage
	}
	if v == "" {
		return "", nil
	}
	if _, err := pgurl.Parse(v); err != nil {
		return "", fmt.Errorf("%s: %v", from, err)
	}
	if err := store.CheckStorage(v); err != nil {
		return "", fmt.Errorf("%s: %v", from, err)
	}
	return v, nil
}
