package sstable

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/cockroachdb/errors"
)

// The footer is the last footerSize bytes of a file:
//
//	 0        16       32       48      52    56        64
//	+--------+--------+--------+-------+-----+---------+
//	| filter | index  | props  |version| CRC |  magic  |
//	+--------+--------+--------+-------+-----+---------+
//
// Each handle is a little-endian uint64 offset and uint64 length. The
// CRC-32C covers bytes 0–52. A filter handle of length 0 means no filter.
const (
	footerSize    = 64
	formatVersion = 1
	// magic is "epochsst" read as a little-endian uint64.
	magic uint64 = 0x74737368636f7065
)

type footer struct {
	filter, index, props blockHandle
	version              uint32
}

func (f *footer) encode() []byte {
	b := make([]byte, 0, footerSize)
	for _, h := range []blockHandle{f.filter, f.index, f.props} {
		b = binary.LittleEndian.AppendUint64(b, h.offset)
		b = binary.LittleEndian.AppendUint64(b, h.length)
	}
	b = binary.LittleEndian.AppendUint32(b, f.version)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return binary.LittleEndian.AppendUint64(b, magic)
}

// decodeFooter parses the footer of a file of the given size, and checks
// that the blocks it locates lie where a Writer puts them: the filter (if
// any), the index and the properties, back to back just before the footer.
func decodeFooter(b []byte, size uint64) (footer, error) {
	var f footer
	if binary.LittleEndian.Uint64(b[56:]) != magic {
		return f, errors.New("bad magic number: not an sstable, or truncated")
	}
	if crc32.Checksum(b[:52], castagnoli) != binary.LittleEndian.Uint32(b[52:]) {
		return f, errors.New("footer checksum mismatch")
	}
	hs := []*blockHandle{&f.filter, &f.index, &f.props}
	for i, h := range hs {
		h.offset = binary.LittleEndian.Uint64(b[16*i:])
		h.length = binary.LittleEndian.Uint64(b[16*i+8:])
	}
	f.version = binary.LittleEndian.Uint32(b[48:])
	if f.version != formatVersion {
		return f, errors.Newf("unsupported format version %d (this build reads %d)", f.version, formatVersion)
	}
	for _, h := range hs {
		if h.offset > size || h.length > size { // so that end() cannot overflow
			return f, errors.Newf("block handle %d+%d beyond a %d-byte file", h.offset, h.length, size)
		}
	}
	if f.props.end() != size-footerSize || f.index.end() != f.props.offset ||
		(f.filter.length != 0 && f.filter.end() != f.index.offset) {
		return f, errors.Newf("block handles do not fit a %d-byte file", size)
	}
	return f, nil
}

// dataEnd is where the data blocks end.
func (f *footer) dataEnd() uint64 {
	if f.filter.length != 0 {
		return f.filter.offset
	}
	return f.index.offset
}
