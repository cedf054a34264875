package bench

import (
	"bytes"
	"encoding/json"
)

// jsonStringText decodes the raw bytes of a JSON string (without its
// quotes) as the chunk scanner found them; escapes are rare, so the
// common case is a copy.
func jsonStringText(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
		return string(raw)
	}
	return s
}
