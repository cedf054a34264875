package space

// EngineDecl declares, in a space file's [engines.<name>] table (or a file
// it includes), an OpenAI-compatible engine servetune has no adapter for.
// space only decodes and validates it; package engines builds the adapter.
// It differs from [target.engines.<name>] (EngineTarget), which says how to
// start an engine on this machine (program override, version, environment)
// for built-in and declared engines alike.
type EngineDecl struct {
	// Command is the program and any fixed leading arguments
	// (["llama-server"], ["python", "-m", "sim.server"]).
	Command []string `json:"command"`
	// Args are fixed arguments after the knob flags.
	Args []string `json:"args,omitempty"`
	// Model, ServedName, Host and Port say how each is passed.
	Model      Pass `json:"model"`
	ServedName Pass `json:"served_name"`
	Host       Pass `json:"host"`
	Port       Pass `json:"port"`
	// DefaultPort is where the engine listens when Port is not passed.
	DefaultPort int `json:"default_port,omitempty"`
	// FlagStyle is "separate" (`--flag value`, default) or "equals"
	// (`--flag=value`).
	FlagStyle string `json:"flag_style"`
	// API is the endpoint the engine serves: "completions" or "chat";
	// "" serves both.
	API   string              `json:"api,omitempty"`
	Knobs map[string]KnobDecl `json:"knobs,omitempty"`
	Ready ReadyDecl           `json:"ready"`
	// Failures are the engine's own messages, checked before the
	// patterns common to all engines.
	Failures []FailureDecl `json:"failures,omitempty"`
	// VersionCommand prints the engine's version (["llama-server",
	// "--version"]); its first version-looking word is the version.
	VersionCommand []string          `json:"version_command,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	// Device is where the engine runs: "gpu" (the default) or "cpu" (a
	// CPU-only program: llama-server built without CUDA, a simulator);
	// a study of CPU engines checks and counts no GPU.
	Device string `json:"device,omitempty"`
}

// Pass is how one value reaches the engine: a flag, the positional
// argument after the command, an environment variable, or not at all
// (the zero value).
type Pass struct {
	Flag       string `json:"flag,omitempty"`
	Positional bool   `json:"positional,omitempty"`
	Env        string `json:"env,omitempty"`
}

// None reports whether the value is not passed at all.
func (p Pass) None() bool { return p == Pass{} }

// KnobDecl maps one knob to a flag or an environment variable.
type KnobDecl struct {
	Flag string `json:"flag,omitempty"`
	Env  string `json:"env,omitempty"`
	// Bool is how a boolean renders: "present" (true → the bare flag,
	// false → nothing; default), "absent" (false → the bare flag),
	// or "value" (`--flag true`).
	Bool string `json:"bool,omitempty"`
	// JSON renders the value as JSON (strings quoted).
	JSON bool `json:"json,omitempty"`
}

// ReadyDecl says when the engine is ready: Path answers Status (default
// 200), and when Field is set its JSON body has Field equal to Value; or,
// with no Path, a log line matches Log.
type ReadyDecl struct {
	Path   string `json:"path,omitempty"`
	Status int    `json:"status,omitempty"`
	Field  string `json:"field,omitempty"`
	Value  string `json:"value,omitempty"`
	Log    string `json:"log,omitempty"`
}

// FailureDecl is one of the engine's messages: a regular expression over
// a log line, the failure class it means, and a one-line reason.
type FailureDecl struct {
	Pattern string `json:"pattern"`
	Class   string `json:"class"`
	Why     string `json:"why,omitempty"`
}

// FailureClasses are the classes a declared failure pattern may name (the
// ones a log line can decide; see engines.Class).
func FailureClasses() []string { return []string{"oom", "invalid_config", "port_conflict"} }
