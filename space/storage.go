package space

import (
	"errors"
	"net/url"
	"strings"
)

// storage reads [study] storage: a SQLite file path, or the postgres://
// URL of shared storage (user, host, database; never the password — the
// space file is stored with the study and shown in its reports, so the
// password comes from PGPASSWORD, ~/.pgpass or $SERVETUNE_STORAGE).
func (d *decoder) storage(m map[string]any) string {
	const path = "study.storage"
	s := d.str(m, "storage", "study", "")
	scheme, _, hasScheme := strings.Cut(s, "://")
	switch {
	case !hasScheme:
		return s // a SQLite file
	case scheme != "postgres" && scheme != "postgresql":
		d.fail(path, "unknown storage %q: a SQLite file path or postgres://user@host/db", scheme+"://")
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		d.fail(path, "is not a valid URL: %v", redactedURLError(err))
		return ""
	}
	if _, has := u.User.Password(); has {
		d.fail(path, "carries a password; the space file is stored with the study and shown in reports, so give the password in PGPASSWORD or ~/.pgpass (or the whole URL in $SERVETUNE_STORAGE)")
		return ""
	}
	return s
}

// IsShared says whether a [study] storage value names shared storage
// (PostgreSQL) rather than a SQLite file.
func IsShared(storage string) bool {
	return strings.HasPrefix(storage, "postgres://") || strings.HasPrefix(storage, "postgresql://")
}

// redactedURLError keeps the parser's complaint without the URL it
// quotes, which may hold a password.
func redactedURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
