// Package preflight is `--dry-run`: before a night's first launch it
// checks what the night depends on (engine programs and versions, GPUs
// visible and free, the checkpoint, the storage, the ports), each check a
// small function of the space and a fakeable World, and estimates on the
// simulator what the study will run and cost; it launches and writes
// nothing.
package preflight
