package engines

import "github.com/servetune/servetune/space"

// ListenFor is how cfg's engine — built-in, or declared in t — binds
// host:port when something other than the launcher starts it (a container
// export): its listen flags, the variables that pass them (a declared
// engine may take its host or port from the environment), and the port it
// actually listens on (a declared engine that takes no port listens on its
// default_port). The served name is the one the trials were measured
// with. It knows the engines Render knows; ok is false for any other.
func ListenFor(cfg space.Config, t space.Target, host string, port int) (args []string, env map[string]string, listens int, ok bool) {
	e, ok := Lookup(EngineOf(cfg, t), t)
	if !ok {
		return nil, nil, 0, false
	}
	model, _ := ModelPath(cfg, t)
	d, isDeclared := e.(declared)
	if !isDeclared {
		args, _ = e.Listen(host, port, model, t.ServedName())
		return args, map[string]string{}, port, true
	}
	if p := d.FixedPort(); p > 0 {
		port = p
	}
	args, env = d.listen(host, port, t.ServedName())
	return args, env, port, true
}
