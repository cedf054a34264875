package bench

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/servetune/servetune/internal/suggest"
)

// traceRow is one request of a trace as its file states it.
type traceRow struct {
	// at is the request's timestamp from the trace's own epoch (Unix time
	// for Azure's datetimes, the file's zero otherwise).
	at      time.Duration
	in, out int
	// hashes are the prompt's block hashes, one per BlockTokens tokens from
	// the start: requests whose hashes agree up to block k share their
	// first k blocks of prompt. Nil when the format has none.
	hashes []int64
	// hashKey names hashes in the file (hash_ids, prefix), and inKey and
	// outKey the lengths (input_length, ContextTokens …), for errors.
	hashKey, inKey, outKey string
}

// emptyKey names the length a row without tokens lacks ("" when it has
// both): such rows are skipped (Azure's traces hold some), and a trace
// of nothing else says which key read 0.
func (r traceRow) emptyKey() string {
	switch {
	case r.in == 0:
		return r.inKey
	case r.out == 0:
		return r.outKey
	}
	return ""
}

// lineError is a bad row, named by its line in the trace file.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *lineError) Unwrap() error { return e.err }

// errStopTrace ends a read early without an error: the window or the
// request cap is full.
var errStopTrace = errors.New("stop")

// maxTraceLine bounds one JSONL row (a Mooncake row of 1M prompt tokens
// has about 2,000 hashes, some 16 kB).
const maxTraceLine = 4 << 20

// readTrace parses r in format and hands each row to each, in file order.
// Rows with no input or no output tokens are skipped: no server can replay
// them (BurstGPT logs failed requests with 0 response tokens). each may
// return errStopTrace to end the read.
func readTrace(r io.Reader, format string, each func(traceRow, int) error) error {
	var err error
	switch format {
	case TraceMooncake:
		err = readJSONLTrace(r, parseMooncakeRow, each)
	case TraceGeneric:
		err = readJSONLTrace(r, parseGenericRow, each)
	case TraceAzure:
		err = readCSVTrace(r, azureColumns, parseAzureRow, each)
	case TraceBurstGPT:
		err = readCSVTrace(r, burstColumns, parseBurstRow, each)
	default:
		err = fmt.Errorf("unknown trace format %q", format)
	}
	if errors.Is(err, errStopTrace) {
		return nil
	}
	return err
}

func readJSONLTrace(r io.Reader, parse func([]byte) (traceRow, error), each func(traceRow, int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		row, err := parse(b)
		if err != nil {
			return &lineError{line, err}
		}
		if err := each(row, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &lineError{line + 1, err}
	}
	return nil
}

// mooncakeRow is a row of Mooncake's released traces (FAST'25 artifact):
// timestamp in milliseconds from the trace's start.
type mooncakeRow struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int64   `json:"input_length"`
	OutputLength *int64   `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
}

func parseMooncakeRow(b []byte) (traceRow, error) {
	var m mooncakeRow
	if err := json.Unmarshal(b, &m); err != nil {
		return traceRow{}, err
	}
	return jsonRow("timestamp", m.Timestamp, "input_length", m.InputLength, "output_length", m.OutputLength, "hash_ids", m.HashIDs)
}

// genericRow is servetune's own trace line (docs/space.md):
// {"t_ms": 0, "input_tokens": 812, "output_tokens": 97, "prefix": [7, 8]}.
type genericRow struct {
	TMs          *float64 `json:"t_ms"`
	InputTokens  *int64   `json:"input_tokens"`
	OutputTokens *int64   `json:"output_tokens"`
	Prefix       []int64  `json:"prefix"`
}

func parseGenericRow(b []byte) (traceRow, error) {
	var g genericRow
	if err := json.Unmarshal(b, &g); err != nil {
		return traceRow{}, err
	}
	return jsonRow("t_ms", g.TMs, "input_tokens", g.InputTokens, "output_tokens", g.OutputTokens, "prefix", g.Prefix)
}

// jsonRow checks a JSONL row's fields, named by their keys.
func jsonRow(tKey string, ms *float64, inKey string, in *int64, outKey string, out *int64, hashKey string, hashes []int64) (traceRow, error) {
	switch {
	case ms == nil:
		return traceRow{}, fmt.Errorf("%s is missing", tKey)
	case in == nil:
		return traceRow{}, fmt.Errorf("%s is missing", inKey)
	case out == nil:
		return traceRow{}, fmt.Errorf("%s is missing", outKey)
	}
	at, err := traceSeconds(tKey, *ms/1000)
	if err != nil {
		return traceRow{}, err
	}
	row := traceRow{at: at, hashes: hashes, hashKey: hashKey, inKey: inKey, outKey: outKey}
	if row.in, err = traceTokens(inKey, *in); err != nil {
		return traceRow{}, err
	}
	// Hash ids number the prompt's blocks (Mooncake's are 0, 1, 2, …): a
	// negative one is a corrupted row, not a block.
	for i, h := range hashes {
		if h < 0 {
			return traceRow{}, fmt.Errorf("%s[%d] is %d: a block's hash id is a number >= 0", hashKey, i, h)
		}
	}
	if row.out, err = traceTokens(outKey, *out); err != nil {
		return traceRow{}, err
	}
	return row, nil
}

// maxTraceSeconds bounds a relative timestamp (about 31 years): far past
// any trace, inside time.Duration.
const maxTraceSeconds = 1e9

func traceSeconds(key string, s float64) (time.Duration, error) {
	if !(s >= 0 && s < maxTraceSeconds) {
		return 0, fmt.Errorf("%s must be a time >= 0 within %g s of the trace's zero, not %v", key, float64(maxTraceSeconds), s)
	}
	return time.Duration(s * float64(time.Second)), nil
}

func traceTokens(key string, n int64) (int, error) {
	if n < 0 || n > maxTraceTokens {
		return 0, fmt.Errorf("%s must be a token count in [0, %d], not %d", key, maxTraceTokens, n)
	}
	return int(n), nil
}

// CSV columns the formats need, by header name.
var (
	azureColumns = []string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}
	burstColumns = []string{"Timestamp", "Request tokens", "Response tokens"}
)

func readCSVTrace(r io.Reader, cols []string, parse func([]string) (traceRow, error), each func(traceRow, int) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return &lineError{1, fmt.Errorf("header: %w", err)}
	}
	idx, err := csvIndex(head, cols)
	if err != nil {
		return &lineError{1, err}
	}
	picked := make([]string, len(cols))
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return &lineError{pe.Line, pe.Err}
			}
			return err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) <= slices.Max(idx) {
			return &lineError{line, fmt.Errorf("has %d fields, the header %d", len(rec), len(head))}
		}
		for i, j := range idx {
			picked[i] = strings.TrimSpace(rec[j])
		}
		row, err := parse(picked)
		if err != nil {
			return &lineError{line, err}
		}
		if err := each(row, line); err != nil {
			return err
		}
	}
}

// csvIndex finds each wanted column in the header (spaces and a UTF-8 BOM
// aside).
func csvIndex(head, want []string) ([]int, error) {
	idx := make([]int, len(want))
	for i, w := range want {
		idx[i] = -1
		for j, h := range head {
			if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == w {
				idx[i] = j
				break
			}
		}
		if idx[i] < 0 {
			return nil, fmt.Errorf("header has no %q column (want %s)", w, strings.Join(want, ", "))
		}
	}
	return idx, nil
}

// azureLayouts are the datetimes of Azure's LLM inference traces: 2023's
// "2023-11-16 18:15:46.6805900", 2024's with a "+00:00" zone. Parsing
// accepts any fractional seconds after the seconds field.
var azureLayouts = []string{"2006-01-02 15:04:05", "2006-01-02 15:04:05Z07:00", time.RFC3339Nano}

func parseAzureRow(f []string) (traceRow, error) {
	var t time.Time
	err := errors.New("no layout")
	for _, l := range azureLayouts {
		if t, err = time.Parse(l, f[0]); err == nil {
			break
		}
	}
	if err != nil || t.Year() < 1970 || t.Year() > 2200 {
		return traceRow{}, fmt.Errorf("TIMESTAMP %q is not a datetime like 2023-11-16 18:15:46.6805900", f[0])
	}
	return csvRow(time.Duration(t.UnixNano()), "ContextTokens", f[1], "GeneratedTokens", f[2])
}

func parseBurstRow(f []string) (traceRow, error) {
	s, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return traceRow{}, fmt.Errorf("column Timestamp: %q is not a number of seconds", f[0])
	}
	at, err := traceSeconds("Timestamp", s)
	if err != nil {
		return traceRow{}, err
	}
	return csvRow(at, "Request tokens", f[1], "Response tokens", f[2])
}

func csvRow(at time.Duration, inKey, in, outKey, out string) (traceRow, error) {
	row := traceRow{at: at, inKey: inKey, outKey: outKey}
	var err error
	if row.in, err = csvTokens(inKey, in); err != nil {
		return traceRow{}, err
	}
	if row.out, err = csvTokens(outKey, out); err != nil {
		return traceRow{}, err
	}
	return row, nil
}

func csvTokens(key, s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Some exports write counts as floats ("52.0"); accept whole ones.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > maxTraceTokens {
			return 0, fmt.Errorf("%s %q is not a token count", key, s)
		}
		n = int64(f)
	}
	return traceTokens(key, n)
}

// detectTraceFormat tells the format from the file's extension and its
// first line: a CSV header names Azure's or BurstGPT's columns, a JSON line
// Mooncake's or the generic keys.
func detectTraceFormat(path string, first []byte) (string, error) {
	line := string(bytes.TrimSpace(first))
	isCSV := strings.EqualFold(filepath.Ext(path), ".csv")
	switch {
	case strings.Contains(line, "ContextTokens") && strings.Contains(line, "GeneratedTokens"):
		return TraceAzure, nil
	case strings.Contains(line, "Request tokens") && strings.Contains(line, "Response tokens"):
		return TraceBurstGPT, nil
	case !isCSV && strings.HasPrefix(line, "{") && strings.Contains(line, `"input_length"`):
		return TraceMooncake, nil
	case !isCSV && strings.HasPrefix(line, "{") && strings.Contains(line, `"input_tokens"`):
		return TraceGeneric, nil
	}
	if why := jsonRowKeys(line); why != "" {
		return "", errors.New("cannot tell its format from the first line: " + why)
	}
	return "", errors.New("cannot tell its format from the first line (want a Mooncake or generic JSONL row, or an Azure or BurstGPT CSV header); set trace.format")
}

// jsonRowKeys says, for a first line that is a JSON object of neither
// JSONL format, which of its keys are not the nearer format's, with the
// key each was likely meant to be ("input_len" → "input_length"): the
// bare "cannot tell its format" did not name the key at fault.
func jsonRowKeys(line string) string {
	var row map[string]json.RawMessage
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &row) != nil || len(row) == 0 {
		return ""
	}
	formats := []struct {
		name string
		keys []string
	}{{TraceMooncake, []string{"timestamp", "input_length", "output_length", "hash_ids"}},
		{TraceGeneric, []string{"t_ms", "input_tokens", "output_tokens", "prefix"}}}
	best, most := formats[0], -1
	for _, f := range formats {
		n := 0
		for k := range row {
			if slices.Contains(f.keys, k) {
				n++
			}
		}
		if n > most {
			best, most = f, n
		}
	}
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(row)) {
		if !slices.Contains(best.keys, k) {
			bad = append(bad, fmt.Sprintf("%q is not a %s key%s", k, best.name, suggest.Hint(k, best.keys)))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return strings.Join(bad, "; ") + fmt.Sprintf(" (a %s row has %s)", best.name, strings.Join(best.keys, ", "))
}

// firstLine is the first non-blank line among the bytes b.
func firstLine(b []byte) []byte {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return b
		}
		if len(bytes.TrimSpace(b[:i])) > 0 {
			return b[:i]
		}
		b = b[i+1:]
	}
	return nil
}
