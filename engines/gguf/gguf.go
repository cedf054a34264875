package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// Version is the format version Write produces.
const Version = 3

// DefaultAlignment is where tensor data starts and each tensor is padded
// to, unless general.alignment says otherwise.
const DefaultAlignment = 32

// ValueType is a metadata value's type tag.
type ValueType uint32

// Metadata value types, in the specification's numbering.
const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

// TensorType is a ggml tensor element type; only F32 is written here.
type TensorType uint32

// GGMLTypeF32 is ggml's 32-bit float tensor type.
const GGMLTypeF32 TensorType = 0

// KV is one metadata entry. Value is a Go value of a type Write knows:
// uint8…uint64, int8…int64, float32, float64, bool, string, or a slice of
// one of them (an array). Order is kept: llama.cpp does not need it, but a
// stable order makes the file deterministic.
type KV struct {
	Key   string
	Value any
}

// Tensor is one tensor to write. Dims are ggml's ne, fastest-varying first:
// a weight applied as y = W·x with len(x) = in is Dims {in, out} and Data
// holds out rows of in values.
type Tensor struct {
	Name string
	Dims []uint64
	Data []float32
}

// Elements is the product of the dims.
func (t Tensor) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// File is a GGUF file's header: what Write writes before the tensor data,
// and what Read returns.
type File struct {
	Version uint32
	KV      []KV
	Tensors []TensorInfo
	// DataOffset is where tensor data begins, from the start of the file.
	DataOffset uint64
}

// TensorInfo describes one tensor in the header; Offset is relative to
// DataOffset.
type TensorInfo struct {
	Name   string
	Dims   []uint64
	Type   TensorType
	Offset uint64
}

// Get returns the value of a metadata key.
func (f *File) Get(key string) (any, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Write writes a GGUF v3 file of F32 tensors. It returns an error for a
// metadata value of a type GGUF cannot hold, or a tensor whose data does
// not fill its dims, before writing anything.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	align := uint64(DefaultAlignment)
	for _, kv := range kvs {
		if _, err := valueType(kv.Value); err != nil {
			return fmt.Errorf("gguf: key %s: %w", kv.Key, err)
		}
		if kv.Key == "general.alignment" {
			a, ok := kv.Value.(uint32)
			if !ok || a == 0 || a%8 != 0 {
				return fmt.Errorf("gguf: general.alignment must be a uint32 multiple of 8, got %v", kv.Value)
			}
			align = uint64(a)
		}
	}
	for _, t := range tensors {
		if uint64(len(t.Data)) != t.Elements() {
			return fmt.Errorf("gguf: tensor %s: %d values for dims %v", t.Name, len(t.Data), t.Dims)
		}
	}
	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	e := &encoder{w: cw}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		e.value(kv.Value, true)
	}
	offset := uint64(0)
	for _, t := range tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(GGMLTypeF32))
		e.u64(offset)
		offset = pad(offset+4*t.Elements(), align)
	}
	e.zeros(pad(cw.n, align) - cw.n)
	buf := make([]byte, 0, 1<<16)
	for _, t := range tensors {
		start := cw.n
		for i, v := range t.Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			if len(buf) == cap(buf) || i == len(t.Data)-1 {
				e.raw(buf)
				buf = buf[:0]
			}
		}
		e.zeros(pad(cw.n-start, align) - (cw.n - start))
	}
	if e.err != nil {
		return fmt.Errorf("gguf: %w", e.err)
	}
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	return nil
}

func pad(n, align uint64) uint64 { return (n + align - 1) / align * align }

type countingWriter struct {
	w io.Writer
	n uint64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

// encoder keeps the first error so the write path reads straight through.
type encoder struct {
	w   io.Writer
	err error
	b   [8]byte
}

func (e *encoder) raw(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *encoder) zeros(n uint64) { e.raw(make([]byte, n)) }
func (e *encoder) u8(v uint8)     { e.raw([]byte{v}) }
func (e *encoder) u16(v uint16)   { binary.LittleEndian.PutUint16(e.b[:], v); e.raw(e.b[:2]) }
func (e *encoder) u32(v uint32)   { binary.LittleEndian.PutUint32(e.b[:], v); e.raw(e.b[:4]) }
func (e *encoder) u64(v uint64)   { binary.LittleEndian.PutUint64(e.b[:], v); e.raw(e.b[:8]) }
func (e *encoder) str(s string)   { e.u64(uint64(len(s))); e.raw([]byte(s)) }

// value writes v, with its type tag when tagged (array elements are not).
func (e *encoder) value(v any, tagged bool) {
	t, _ := valueType(v)
	if tagged {
		e.u32(uint32(t))
	}
	switch x := v.(type) {
	case uint8:
		e.u8(x)
	case int8:
		e.u8(uint8(x))
	case uint16:
		e.u16(x)
	case int16:
		e.u16(uint16(x))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float32:
		e.u32(math.Float32bits(x))
	case float64:
		e.u64(math.Float64bits(x))
	case bool:
		if x {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case string:
		e.str(x)
	default:
		array(e, v)
	}
}

func array(e *encoder, v any) {
	switch x := v.(type) {
	case []uint8:
		writeArray(e, TypeUint8, x)
	case []int8:
		writeArray(e, TypeInt8, x)
	case []uint16:
		writeArray(e, TypeUint16, x)
	case []int16:
		writeArray(e, TypeInt16, x)
	case []uint32:
		writeArray(e, TypeUint32, x)
	case []int32:
		writeArray(e, TypeInt32, x)
	case []uint64:
		writeArray(e, TypeUint64, x)
	case []int64:
		writeArray(e, TypeInt64, x)
	case []float32:
		writeArray(e, TypeFloat32, x)
	case []float64:
		writeArray(e, TypeFloat64, x)
	case []bool:
		writeArray(e, TypeBool, x)
	case []string:
		writeArray(e, TypeString, x)
	}
}

func writeArray[T any](e *encoder, t ValueType, xs []T) {
	e.u32(uint32(t))
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.value(x, false)
	}
}

var errType = errors.New("not a GGUF value type")

func valueType(v any) (ValueType, error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, nil
	case int8:
		return TypeInt8, nil
	case uint16:
		return TypeUint16, nil
	case int16:
		return TypeInt16, nil
	case uint32:
		return TypeUint32, nil
	case int32:
		return TypeInt32, nil
	case uint64:
		return TypeUint64, nil
	case int64:
		return TypeInt64, nil
	case float32:
		return TypeFloat32, nil
	case float64:
		return TypeFloat64, nil
	case bool:
		return TypeBool, nil
	case string:
		return TypeString, nil
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []uint64, []int64,
		[]float32, []float64, []bool, []string:
		return TypeArray, nil
	}
	return 0, fmt.Errorf("%w: %T", errType, v)
}
