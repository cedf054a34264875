package space

import "strings"

// storage reads [study] storage. The space file is stored with the study
// and shown in its reports, so it may name the server and the password
// file but never hold a password. The value's syntax is the store's
// (Options.Storage, studies/store/pgurl); without the hook any value is
// taken as given.
func (d *decoder) storage(m map[string]any) string {
	const path = "study.storage"
	s := d.str(m, "storage", "study", "")
	if v, given := m["storage"].(string); given && strings.TrimSpace(v) == "" {
		d.fail(path, "is empty: name the study's file or PostgreSQL server, or leave storage out for studies/<name>/study.db")
		return ""
	}
	if d.opt.Storage == nil {
		return s
	}
	keys, err := d.opt.Storage(s)
	if err != nil {
		d.fail(path, "%s", err.Error())
		return ""
	}
	if len(keys) > 0 {
		d.fail(path, "carries a secret (%s); the space file is stored with the study and shown in reports, so give the password in PGPASSWORD or a passfile (or the whole URL in $SERVETUNE_STORAGE)", strings.Join(keys, ", "))
		return ""
	}
	return s
}
