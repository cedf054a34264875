package studies

import (
	"errors"
	"fmt"

	"github.com/servetune/servetune/space"
)

// CheckWorkers refuses --workers values the run cannot honour. Real
// engines run side by side only when packed onto GPUs of their own:
// without a GPU list every engine would see every GPU.
func CheckWorkers(sp *space.Space, n int, devices []string) error {
	switch {
	case n < 1:
		return errors.New("--workers must be at least 1")
	case n > 1 && sp.Target.Runner == "process" && len(devices) == 0:
		return fmt.Errorf("--workers %d runs %d real engines at once and needs the GPUs to pack them onto, or they would share GPUs: pass --gpus (e.g. 0-7), or run where CUDA_VISIBLE_DEVICES, SLURM_STEP_GPUS, SLURM_JOB_GPUS or NVIDIA_VISIBLE_DEVICES lists them", n, n)
	}
	return nil
}
