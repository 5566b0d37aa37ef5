package gguf

import "encoding/binary"

// raw writes GGUF bytes field by field, for files the Builder would refuse
// to write. It is kept independent of the Builder on purpose.
type raw struct{ b []byte }

func (r *raw) u8(v uint8) *raw   { r.b = append(r.b, v); return r }
func (r *raw) u16(v uint16) *raw { r.b = binary.LittleEndian.AppendUint16(r.b, v); return r }
func (r *raw) u32(v uint32) *raw { r.b = binary.LittleEndian.AppendUint32(r.b, v); return r }
func (r *raw) u64(v uint64) *raw { r.b = binary.LittleEndian.AppendUint64(r.b, v); return r }
func (r *raw) str(s string) *raw { return r.u64(uint64(len(s))).bytes([]byte(s)) }
func (r *raw) bytes(p []byte) *raw {
	r.b = append(r.b, p...)
	return r
}

// at is the offset the next field will be written at.
func (r *raw) at() int64 { return int64(len(r.b)) }

// pad appends zeros up to a multiple of align.
func (r *raw) pad(align int) *raw {
	for len(r.b)%align != 0 {
		r.b = append(r.b, 0)
	}
	return r
}

// kv starts a metadata kv: key and value type; the caller writes the value.
func (r *raw) kv(key string, vt valueType) *raw { return r.str(key).u32(uint32(vt)) }

// tensor writes a tensor info.
func (r *raw) tensor(name string, t Type, dims []uint64, offset uint64) *raw {
	r.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		r.u64(d)
	}
	return r.u32(uint32(t)).u64(offset)
}

// header starts a file: magic, version and the two counts.
func header(version uint32, tensors, kvs uint64) *raw {
	r := &raw{}
	return r.bytes([]byte("GGUF")).u32(version).u64(tensors).u64(kvs)
}
