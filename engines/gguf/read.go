package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Limits that keep a corrupt or hostile header from allocating gigabytes.
const (
	maxString   = 1 << 20
	maxArray    = 1 << 24
	maxCount    = 1 << 20
	maxTensorND = 4
)

// ErrNotGGUF is returned by Read for a file that does not start with the
// GGUF magic (a safetensors directory, a PyTorch .bin, a text file).
var ErrNotGGUF = errors.New("not a GGUF file")

// Read parses a GGUF header (v2 or v3): metadata and tensor infos, not the
// tensor data. Arrays come back as typed slices ([]string, []float32, …),
// scalars as the Go type of their tag.
func Read(r io.Reader) (*File, error) {
	d := &decoder{r: bufio.NewReader(r)}
	var magic [4]byte
	d.full(magic[:])
	if d.err != nil {
		return nil, fmt.Errorf("gguf: %w", d.err)
	}
	if string(magic[:]) != Magic {
		return nil, ErrNotGGUF
	}
	f := &File{Version: d.u32()}
	if d.err == nil && f.Version != 2 && f.Version != 3 {
		return nil, fmt.Errorf("gguf: unsupported version %d", f.Version)
	}
	nt, nkv := d.u64(), d.u64()
	if d.err == nil && (nt > maxCount || nkv > maxCount) {
		return nil, fmt.Errorf("gguf: implausible counts: %d tensors, %d keys", nt, nkv)
	}
	align := uint64(DefaultAlignment)
	for i := uint64(0); i < nkv && d.err == nil; i++ {
		k := d.str()
		v := d.value(ValueType(d.u32()))
		if k == "general.alignment" {
			if a, ok := v.(uint32); ok && a > 0 {
				align = uint64(a)
			}
		}
		f.KV = append(f.KV, KV{Key: k, Value: v})
	}
	for i := uint64(0); i < nt && d.err == nil; i++ {
		ti := TensorInfo{Name: d.str()}
		nd := d.u32()
		if nd > maxTensorND {
			return nil, fmt.Errorf("gguf: tensor %s has %d dims", ti.Name, nd)
		}
		for j := uint32(0); j < nd; j++ {
			ti.Dims = append(ti.Dims, d.u64())
		}
		ti.Type = TensorType(d.u32())
		ti.Offset = d.u64()
		f.Tensors = append(f.Tensors, ti)
	}
	if d.err != nil {
		return nil, fmt.Errorf("gguf: truncated or corrupt header: %w", d.err)
	}
	f.DataOffset = pad(d.n, align)
	return f, nil
}

type decoder struct {
	r   *bufio.Reader
	n   uint64
	err error
	b   [8]byte
}

func (d *decoder) full(p []byte) {
	if d.err != nil {
		clear(p)
		return
	}
	n, err := io.ReadFull(d.r, p)
	d.n += uint64(n)
	d.err = err
}

func (d *decoder) u8() uint8   { d.full(d.b[:1]); return d.b[0] }
func (d *decoder) u16() uint16 { d.full(d.b[:2]); return binary.LittleEndian.Uint16(d.b[:2]) }
func (d *decoder) u32() uint32 { d.full(d.b[:4]); return binary.LittleEndian.Uint32(d.b[:4]) }
func (d *decoder) u64() uint64 { d.full(d.b[:8]); return binary.LittleEndian.Uint64(d.b[:8]) }

func (d *decoder) str() string {
	n := d.u64()
	if d.err != nil {
		return ""
	}
	if n > maxString {
		d.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	return string(d.bytes(n))
}

// bytes reads n bytes, growing the buffer as they arrive: a corrupt length
// must not allocate up to maxString before the input runs out.
func (d *decoder) bytes(n uint64) []byte {
	const chunk = 64 << 10
	b := make([]byte, 0, min(n, chunk))
	for uint64(len(b)) < n && d.err == nil {
		k := int(min(n-uint64(len(b)), chunk))
		b = slices.Grow(b, k)
		d.full(b[len(b) : len(b)+k])
		b = b[:len(b)+k]
	}
	return b
}

func (d *decoder) value(t ValueType) any {
	switch t {
	case TypeUint8:
		return d.u8()
	case TypeInt8:
		return int8(d.u8())
	case TypeUint16:
		return d.u16()
	case TypeInt16:
		return int16(d.u16())
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		return int64(d.u64())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeFloat64:
		return math.Float64frombits(d.u64())
	case TypeBool:
		return d.u8() != 0
	case TypeString:
		return d.str()
	case TypeArray:
		return d.array()
	}
	if d.err == nil {
		d.err = fmt.Errorf("unknown value type %d", t)
	}
	return nil
}

func (d *decoder) array() any {
	t, n := ValueType(d.u32()), d.u64()
	if d.err != nil {
		return nil
	}
	if n > maxArray {
		d.err = fmt.Errorf("array of %d elements", n)
		return nil
	}
	switch t {
	case TypeUint8:
		return readArray(d, n, (*decoder).u8)
	case TypeInt8:
		return readArray(d, n, func(d *decoder) int8 { return int8(d.u8()) })
	case TypeUint16:
		return readArray(d, n, (*decoder).u16)
	case TypeInt16:
		return readArray(d, n, func(d *decoder) int16 { return int16(d.u16()) })
	case TypeUint32:
		return readArray(d, n, (*decoder).u32)
	case TypeInt32:
		return readArray(d, n, func(d *decoder) int32 { return int32(d.u32()) })
	case TypeUint64:
		return readArray(d, n, (*decoder).u64)
	case TypeInt64:
		return readArray(d, n, func(d *decoder) int64 { return int64(d.u64()) })
	case TypeFloat32:
		return readArray(d, n, func(d *decoder) float32 { return math.Float32frombits(d.u32()) })
	case TypeFloat64:
		return readArray(d, n, func(d *decoder) float64 { return math.Float64frombits(d.u64()) })
	case TypeBool:
		return readArray(d, n, func(d *decoder) bool { return d.u8() != 0 })
	case TypeString:
		return readArray(d, n, (*decoder).str)
	}
	d.err = fmt.Errorf("array of unsupported type %d", t)
	return nil
}

// readArray grows with the elements that arrive, from a small first guess,
// for the same reason as bytes.
func readArray[T any](d *decoder, n uint64, one func(*decoder) T) []T {
	xs := make([]T, 0, min(n, 256))
	for i := uint64(0); i < n && d.err == nil; i++ {
		xs = append(xs, one(d))
	}
	return xs
}
