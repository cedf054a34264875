// Package studydir is the only code that knows a study directory's layout
// (study.db, lock, trial-N/, engines/) and holds the lock that keeps a
// second servetune out of it, an flock naming its holder. Keeping the
// layout in one place lets the rest of the module ask a Dir for paths
// instead of joining them.
package studydir
