package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// header is a GGUF v3 header with nt tensors and nkv keys, for seeds that
// lie about what follows.
func header(nt, nkv uint64, rest ...[]byte) []byte {
	b := []byte(Magic)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint64(b, nt)
	b = binary.LittleEndian.AppendUint64(b, nkv)
	for _, r := range rest {
		b = append(b, r...)
	}
	return b
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// FuzzRead: arbitrary bytes never panic Read, fail with its own errors,
// and cost memory in proportion to the input, not to the lengths and
// counts it claims.
func FuzzRead(f *testing.F) {
	var good bytes.Buffer
	kvs := []KV{{"s", "héllo"}, {"a.str", []string{"<s>", "▁the"}}, {"a.f64", []float64{1, 2}}, {"general.alignment", uint32(64)}, {"b", true}}
	if err := Write(&good, kvs, []Tensor{{Name: "w", Dims: []uint64{2, 2}, Data: make([]float32, 4)}}); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	f.Add([]byte("GGUF"))
	f.Add([]byte("PK\x03\x04"))
	f.Add(header(0, 1, u64(maxString), []byte("k")))                                                         // a key claiming 1 MiB
	f.Add(header(0, 1, u64(1), []byte("k"), u32(uint32(TypeArray)), u32(uint32(TypeString)), u64(maxArray))) // 16M strings
	f.Add(header(0, 1, u64(1), []byte("k"), u32(uint32(TypeArray)), u32(uint32(TypeArray)), u64(2)))         // nested array
	f.Add(header(maxCount, maxCount))
	f.Add(header(1, 0, u64(1), []byte("t"), u32(maxTensorND+1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		file, err := Read(bytes.NewReader(data))
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<10+64*uint64(len(data)) {
			t.Errorf("Read of %d bytes allocated %d bytes", len(data), grew)
		}
		switch {
		case err == nil && file == nil:
			t.Fatal("no file and no error")
		case err != nil && !errors.Is(err, ErrNotGGUF) && !strings.HasPrefix(err.Error(), "gguf: "):
			t.Errorf("error %q does not say it is about GGUF", err)
		case err == nil && file.DataOffset < uint64(len(Magic)+20):
			t.Errorf("data offset %d inside the fixed header", file.DataOffset)
		}
	})
}
