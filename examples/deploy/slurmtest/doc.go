// Package slurmtest starts a throwaway SLURM cluster on this host for
// tests: slurmctld and one slurmd per node (Debian's slurm-wlm) as child
// processes in the foreground, their configuration, state, spool and logs
// in a temporary directory, on free loopback ports, stopped when the test
// ends. Each node offers eight fake GPUs as a generic resource, so a job
// asking for --gres=gpu:8 gets SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES set
// by SLURM itself, as on a GPU node. The nodes are separate slurmd
// daemons, so a job spans them as it spans hosts, but they share this
// host's processes, files and loopback network.
//
// It owns nothing else: jobs are submitted by the test with the usual
// commands (sbatch, squeue) and SLURM_CONF from Cluster.Env. With CI set,
// a cluster that cannot start fails the test instead of skipping it.
//
// The cluster authenticates nothing (auth/none, cred/none: no munge
// daemon, no key) and listens on loopback only; it is a test fixture, not
// a recipe for a real cluster.
package slurmtest
