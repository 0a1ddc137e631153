package sstable

import (
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"strconv"
	"sync"

	"github.com/cockroachdb/errors"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Compression selects how a Writer compresses blocks. The zero value picks
// the default, the codec chosen by measurement (see doc.go).
type Compression uint8

const (
	DefaultCompression Compression = iota
	NoCompression
	S2Compression
	ZstdCompression
)

func (c Compression) String() string {
	switch c {
	case DefaultCompression:
		return "default"
	case NoCompression:
		return "none"
	case S2Compression:
		return "s2"
	case ZstdCompression:
		return "zstd"
	}
	return "compression(" + strconv.Itoa(int(c)) + ")"
}

// The block type byte in a block's trailer: how its stored bytes decode.
const (
	blockRaw  byte = 0
	blockS2   byte = 1
	blockZstd byte = 2
)

// trailerSize is the type byte and the CRC-32C that follow every block.
const trailerSize = 5

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// blockChecksum covers a block's stored bytes and its type byte.
func blockChecksum(stored []byte, typ byte) uint32 {
	c := crc32.Update(0, castagnoli, stored)
	return crc32.Update(c, castagnoli, []byte{typ})
}

// Both codecs are safe for concurrent use; one of each serves the process.
var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderCRC(false), // every block has a CRC-32C of its own
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)))
		if err != nil {
			panic(err) // only invalid options fail
		}
		return e
	})
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
		if err != nil {
			panic(err)
		}
		return d
	})
)

// compressBlock returns the bytes to store for raw and their type byte. It
// keeps the compressed form only if that saves at least an eighth of the
// block; scratch is reused for it.
func compressBlock(c Compression, raw, scratch []byte) (stored []byte, typ byte, _ []byte) {
	var typC byte
	switch c {
	case S2Compression:
		if n := s2.MaxEncodedLen(len(raw)); cap(scratch) < n {
			scratch = make([]byte, n)
		}
		scratch = s2.Encode(scratch[:cap(scratch)], raw)
		typC = blockS2
	case ZstdCompression:
		scratch = zstdEncoder().EncodeAll(raw, scratch[:0])
		typC = blockZstd
	default:
		return raw, blockRaw, scratch
	}
	if len(scratch) > len(raw)-len(raw)/8 {
		return raw, blockRaw, scratch
	}
	return scratch, typC, scratch
}

// decompressBlock returns the raw block for stored bytes whose checksum
// matched. A raw block is returned as is, not copied.
func decompressBlock(typ byte, stored []byte) ([]byte, error) {
	switch typ {
	case blockRaw:
		return stored, nil
	case blockS2:
		n, err := s2.DecodedLen(stored)
		if err != nil {
			return nil, errors.Wrap(err, "s2 block")
		}
		b, err := s2.Decode(make([]byte, n), stored)
		return b, errors.Wrap(err, "s2 block")
	case blockZstd:
		b, err := zstdDecoder().DecodeAll(stored, nil)
		return b, errors.Wrap(err, "zstd block")
	}
	return nil, errors.Newf("unknown block type %d", typ)
}

// blockHandle locates a block's stored bytes; its trailer follows them.
type blockHandle struct {
	offset, length uint64
}

func (h blockHandle) end() uint64 { return h.offset + h.length + trailerSize }

func appendHandle(b []byte, h blockHandle) []byte {
	b = binary.AppendUvarint(b, h.offset)
	return binary.AppendUvarint(b, h.length)
}
