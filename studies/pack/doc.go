// Package pack packs trials onto a worker's GPUs: a trial takes the
// lowest free devices it needs, or none until enough are free, and gives
// them back when it ends. It knows device names only, not configs or
// engines: the study loop decides how many a trial needs, and pack that
// no device is shared.
package pack
