package slurmtest

import (
	"fmt"
	"strings"
)

// config is what slurm.conf and gres.conf are rendered from.
type config struct {
	dir        string // holds state/, spool/, log/, dev/
	host, user string
	nodes      []string // node names, each a slurmd on this host
	ports      []int    // slurmctld's, then each node's slurmd's
	cpus, gpus int
}

// partition is the cluster's one (default) partition.
const partition = "servetune"

// slurmConf is the cluster's slurm.conf. Every plugin is one that needs no
// daemon or kernel feature beyond a process: no munge (auth/none), no
// cgroups (proctrack/linuxproc, task/none), no accounting database. Each
// node is a slurmd on this host with its own port, spool, pid and log
// (%n is the node's name).
func (c config) slurmConf() string {
	lines := []string{
		"ClusterName=servetune-test",
		fmt.Sprintf("SlurmctldHost=%s(127.0.0.1)", c.host),
		fmt.Sprintf("SlurmctldPort=%d", c.ports[0]),
		"SlurmUser=" + c.user,
		"SlurmdUser=" + c.user,
		"AuthType=auth/none",
		"CredType=cred/none",
		"StateSaveLocation=" + c.dir + "/state",
		"SlurmdSpoolDir=" + c.dir + "/spool/%n",
		"SlurmctldPidFile=" + c.dir + "/slurmctld.pid",
		"SlurmdPidFile=" + c.dir + "/slurmd-%n.pid",
		"SlurmctldLogFile=" + c.dir + "/log/slurmctld.log",
		"SlurmdLogFile=" + c.dir + "/log/slurmd-%n.log",
		"PlugStackConfig=" + c.dir + "/plugstack.conf",
		"SelectType=select/cons_tres",
		"SelectTypeParameters=CR_Core",
		"ProctrackType=proctrack/linuxproc",
		"TaskPlugin=task/none",
		"JobAcctGatherType=jobacct_gather/none",
		"AccountingStorageType=accounting_storage/none",
		"JobCompType=jobcomp/none",
		"MpiDefault=none",
		"SchedulerType=sched/builtin",
		"ReturnToService=2",
		// sbatch --wait polls every 2 s while that is under half of
		// MinJobAge, and backs off to 8 and 32 s otherwise (the default
		// age is 300 s): 4 keeps a short job's wait short and its record
		// there for the next poll.
		"MinJobAge=4",
		"GresTypes=gpu",
	}
	for i, n := range c.nodes {
		lines = append(lines, fmt.Sprintf("NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=1000 Gres=gpu:%d State=UNKNOWN",
			n, c.host, c.ports[i+1], c.cpus, c.gpus))
	}
	lines = append(lines, fmt.Sprintf("PartitionName=%s Nodes=%s Default=YES MaxTime=INFINITE State=UP", partition, strings.Join(c.nodes, ",")))
	return strings.Join(lines, "\n") + "\n"
}

// gresConf gives each node's GPUs one device file each: SLURM sets a
// job's SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES only for GPUs with a File,
// and refuses a File that is not a character or block device, so each is a
// symlink to /dev/null (nothing opens them). The nodes share the files as
// they share the host.
func (c config) gresConf() string {
	var b strings.Builder
	for _, n := range c.nodes {
		fmt.Fprintf(&b, "NodeName=%s Name=gpu File=%s/dev/nvidia[0-%d]\n", n, c.dir, c.gpus-1)
	}
	return b.String()
}
