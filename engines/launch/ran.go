package launch

import (
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
)

// ran is the command a trial actually executed, as a user copies it: the
// full argv (prefix, program override, listen flags, generated files'
// paths) and every variable servetune set for it (the target's, the
// engine's, the config's), not the inherited environment. Values of
// variables whose names say they hold a secret are redacted, here and
// wherever they occur in argv; so are such values inherited from
// servetune's own environment.
func ran(argv []string, set map[string]string, environ []string) engines.Command {
	var secrets []string
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && secretName(k) && len(v) >= 4 {
			secrets = append(secrets, v)
		}
	}
	env := map[string]string{}
	for k, v := range set {
		if secretName(k) && v != "" {
			secrets = append(secrets, v)
		}
	}
	for k, v := range set {
		env[k] = bench.Redact(v, secrets...)
	}
	out := engines.Command{Argv: make([]string, len(argv)), Env: env}
	for i, a := range argv {
		out.Argv[i] = bench.Redact(a, secrets...)
	}
	if len(env) == 0 {
		out.Env = nil
	}
	return out
}

// secretName reports a variable name that says it holds a credential
// (HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, …).
func secretName(k string) bool {
	k = strings.ToUpper(k)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}
