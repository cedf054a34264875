// Package slurmtest starts a throwaway one-node SLURM cluster for tests:
// slurmctld and slurmd (Debian's slurm-wlm) as child processes in the
// foreground, their configuration, state, spool and logs in a temporary
// directory, on free loopback ports, stopped when the test ends. The node
// offers eight fake GPUs as a generic resource, so a job asking for
// --gres=gpu:8 gets SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES set by SLURM
// itself, as on a GPU node.
//
// It owns nothing else: jobs are submitted by the test with the usual
// commands (sbatch, squeue) and SLURM_CONF from Cluster.Env. With CI set,
// a cluster that cannot start fails the test instead of skipping it.
//
// The cluster authenticates nothing (auth/none, cred/none: no munge
// daemon, no key) and listens on loopback only; it is a test fixture, not
// a recipe for a real cluster.
package slurmtest
