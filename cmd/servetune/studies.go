package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/export"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// dirFlag is a new flag per command: urfave/cli keeps parse state in it.
func dirFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "dir", Value: "studies", Usage: "studies live in `DIR`/<name>/study.db"}
}

// storageFlag names shared study storage (see the worker command).
func storageFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "storage", Usage: "read the study from shared storage at `URL` (postgres://user@host/db; default $" + storageEnv + "; otherwise --dir)"}
}

func studiesCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "studies",
		Usage: "list studies with their trial counts and best result",
		Flags: []cli.Flag{dirFlag(), storageFlag()},
		Action: func(c *cli.Context) error {
			url, err := storageURL(c.String("storage"), nil)
			if err != nil {
				return err
			}
			return studies.WriteList(e.stdout, studies.List(c.Context, c.String("dir"), url))
		},
	}
}

func showCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show every trial of a study",
		ArgsUsage: "STUDY (a name under --dir, or a study.db path)",
		Flags: []cli.Flag{dirFlag(), storageFlag(),
			&cli.StringFlag{Name: "sort", Usage: "sort by `METRIC`, e.g. total_tps or balanced/mean_tpot_ms (default: trial number)"},
			&cli.BoolFlag{Name: "asc", Usage: "sort ascending (default: best first for objectives, descending otherwise)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "csv", Usage: "print CSV"},
		},
		Action: func(c *cli.Context) error {
			sp, trials, err := studyArg(c)
			if err != nil {
				return err
			}
			if s := c.String("sort"); s != "" {
				profile, name, dir, err := studies.SortKey(sp, trials, s)
				if err != nil {
					return usageError{err}
				}
				if c.Bool("asc") {
					dir = space.Minimize
				}
				studies.SortTrials(trials, profile, name, dir)
			}
			switch {
			case c.Bool("json"):
				return studies.TrialsJSON(e.stdout, trials)
			case c.Bool("csv"):
				return studies.TrialsCSV(e.stdout, trials)
			}
			return studies.TrialsText(e.stdout, sp, trials)
		},
	}
}

func bestCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "best",
		Usage:     "show the best trial (or Pareto front) of a study with its serving command",
		ArgsUsage: "STUDY (a name under --dir, or a study.db path)",
		Description: `--export docker prints a shell snippet: the generated files (if any),
then one docker run of the engine's official image (vllm/vllm-openai,
lmsysorg/sglang, nvcr.io/nvidia/tensorrt-llm/release, ollama/ollama;
tagged with target.engines.<engine>.version, else the release the
command was rendered for, never latest) with the
trial's exact argv and env, the trial's own GPUs, --ipc=host, the host's
model cache and HF_TOKEN passed from your environment by name. --export k8s
prints a Deployment (the trial's GPU count, startup/readiness/liveness
probes on the engine's health endpoint, /dev/shm in memory, the model cache
on the PersistentVolumeClaim servetune-model-cache, HF_TOKEN from the
optional Secret hf-token), a Service and the generated files' ConfigMap,
ready for kubectl apply -f. The Deployment runs the replicas the study
computed for [target] traffic_rps (else 1) on nodes of the trial's GPU
type (nvidia.com/gpu.product as GPU Feature Discovery labels it, or
[target.node_selector.<type>], or --node-selector), each said in a
comment; without --trial
it writes one Deployment per GPU type among the winners (alternatives,
each sized for the whole traffic). A disaggregated trial exports one Deployment
and Service per process (a cache claim per server, or one ReadWriteMany
claim with --shared-cache; pod affinity for servers sharing a node; an
RDMA NIC, --rdma-resource, for servers whose KV crosses nodes; vLLM's
production router), or with docker a Compose file for one host. A trial
that did not complete is refused unless --force; a declared engine needs
--image.`,
		Flags: []cli.Flag{dirFlag(), storageFlag(),
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "markdown", Usage: "print Markdown"},
			&cli.StringFlag{Name: "export", Usage: "print what deploys the best trial (or --trial) as `KIND`: docker (a docker run line) | k8s (Kubernetes manifests)"},
			&cli.IntFlag{Name: "trial", Usage: "with --export: this trial instead of the best (the front's first member)"},
			&cli.BoolFlag{Name: "force", Usage: "with --export: export a trial that did not complete (pruned, failed, out of memory)"},
			&cli.StringFlag{Name: "image", Usage: "with --export: the container `IMAGE` instead of the engine's official one (a declared engine has none)"},
			&cli.BoolFlag{Name: "shared-cache", Usage: "with --export k8s of a disaggregated trial: the storage offers ReadWriteMany, so every server mounts one model cache claim instead of one ReadWriteOnce claim each"},
			&cli.StringFlag{Name: "router-image", Usage: "with --export of a disaggregated vLLM trial: an `IMAGE` holding vLLM's router (vllm-router) to run instead of installing it into vLLM's image"},
			&cli.StringSliceFlag{Name: "node-selector", Usage: "with --export k8s: `SELECTOR` is GPU:KEY=VALUE, pinning that GPU type's pods to nodes labelled KEY=VALUE instead of [target.node_selector] or GPU Feature Discovery's nvidia.com/gpu.product (repeatable; GPU: pins none)"},
			&cli.StringFlag{Name: "rdma-resource", Usage: "with --export k8s of a disaggregated trial: the extended resource `NAME` of the RDMA NICs a server moving KV across nodes requests (default " + export.DefaultRDMAResource + ")"},
		},
		Action: func(c *cli.Context) error {
			if c.IsSet("trial") && c.Int("trial") < 1 {
				// 0 read as "the best", the flag left out: trials are
				// numbered from 1.
				return usagef("--trial %d: trials are numbered from 1 (leave --trial out for the best)", c.Int("trial"))
			}
			sp, trials, err := studyArg(c)
			if err != nil {
				return err
			}
			r := studies.BuildReport(sp, trials, renderCommand(sp))
			kept, err := studies.KeptPredictions(sp, studydir.Of(c.String("dir"), c.Args().First()))
			if err != nil {
				return err
			}
			if kept != nil {
				r.WithPredictions(sp, trials, kept)
			}
			if c.IsSet("export") {
				sel, err := export.ParseNodeSelectors(sp, c.StringSlice("node-selector"))
				if err != nil {
					return usageError{err}
				}
				return e.export(sp, trials, r, c.String("export"), c.Int("trial"), export.Options{Force: c.Bool("force"), Image: c.String("image"),
					SharedCache: c.Bool("shared-cache"), RDMAResource: c.String("rdma-resource"), RouterImage: c.String("router-image"), NodeSelector: sel})
			}
			switch {
			case c.Bool("json"):
				return r.JSON(e.stdout)
			case c.Bool("markdown"):
				return r.Markdown(e.stdout)
			}
			return r.Text(e.stdout)
		},
	}
}

// studyArg opens the study named by the first argument.
func studyArg(c *cli.Context) (*space.Space, []store.Trial, error) {
	if c.NArg() != 1 {
		return nil, nil, usagef("%s takes one study name or path, got %d arguments", c.Command.Name, c.NArg())
	}
	arg := c.Args().First()
	url, err := storageURL(c.String("storage"), nil)
	if err != nil {
		return nil, nil, err
	}
	if store.IsPostgres(url) {
		st, err := store.OpenPostgres(c.Context, url, arg, store.ReadOnly)
		if err != nil {
			return nil, nil, err
		}
		defer st.Close()
		sp, ts, err := studies.ReadStudy(c.Context, st, store.Redact(url)+" study "+arg)
		store.MarkHolderGone(ts, time.Now(), store.SharedLiveness())
		return sp, ts, err
	}
	d := studydir.Of(c.String("dir"), arg)
	if !d.Exists() {
		return nil, nil, usagef("no study %q (looked for %s); `servetune studies` lists them", arg, d.DB())
	}
	return studies.OpenStudy(c.Context, d)
}
