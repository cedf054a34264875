package slurmtest

import (
	"fmt"
	"strings"
)

// config is what slurm.conf and gres.conf are rendered from.
type config struct {
	dir                string // holds state/, spool/, log/, dev/
	node, user         string
	cpus, gpus         int
	ctldPort, nodePort int
}

// partition is the cluster's one (default) partition.
const partition = "servetune"

// slurmConf is the cluster's slurm.conf. Every plugin is one that needs no
// daemon or kernel feature beyond a process: no munge (auth/none), no
// cgroups (proctrack/linuxproc, task/none), no accounting database.
func (c config) slurmConf() string {
	lines := []string{
		"ClusterName=servetune-test",
		fmt.Sprintf("SlurmctldHost=%s(127.0.0.1)", c.node),
		fmt.Sprintf("SlurmctldPort=%d", c.ctldPort),
		fmt.Sprintf("SlurmdPort=%d", c.nodePort),
		"SlurmUser=" + c.user,
		"SlurmdUser=" + c.user,
		"AuthType=auth/none",
		"CredType=cred/none",
		"StateSaveLocation=" + c.dir + "/state",
		"SlurmdSpoolDir=" + c.dir + "/spool",
		"SlurmctldPidFile=" + c.dir + "/slurmctld.pid",
		"SlurmdPidFile=" + c.dir + "/slurmd.pid",
		"SlurmctldLogFile=" + c.dir + "/log/slurmctld.log",
		"SlurmdLogFile=" + c.dir + "/log/slurmd.log",
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
		fmt.Sprintf("NodeName=%s NodeAddr=127.0.0.1 CPUs=%d RealMemory=1000 Gres=gpu:%d State=UNKNOWN", c.node, c.cpus, c.gpus),
		fmt.Sprintf("PartitionName=%s Nodes=%s Default=YES MaxTime=INFINITE State=UP", partition, c.node),
	}
	return strings.Join(lines, "\n") + "\n"
}

// gresConf gives the node's GPUs one device file each: SLURM sets a
// job's SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES only for GPUs with a File,
// and refuses a File that is not a character or block device, so each is a
// symlink to /dev/null (nothing opens them).
func (c config) gresConf() string {
	return fmt.Sprintf("Name=gpu File=%s/dev/nvidia[0-%d]\n", c.dir, c.gpus-1)
}
