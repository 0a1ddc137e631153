package sstable

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The generators below make the data the compression measurements in doc.go
// were taken on. Keys mimic sql's primary-index keys: a data prefix, a
// 4-byte table id, an index number and an order-preserving integer.

func tableKey(table uint32, id int64) []byte {
	k := []byte{'d', 0, 0, 0, 0, 1}
	binary.BigEndian.PutUint32(k[1:], table)
	k = append(k, 0xf8+byte(3)) // a positive integer in 4 bytes
	return binary.BigEndian.AppendUint32(k, uint32(id))
}

// pgbenchAccounts makes rows like pgbench_accounts after pgbench -i: aid,
// bid, abalance = 0 and an 84-char blank-padded filler, encoded the way
// sql/types.EncodeRow does (column count, NULL bitmap, varints, strings).
func pgbenchAccounts(n int) []Entry {
	es := make([]Entry, n)
	for i := range es {
		aid := int64(i + 1)
		v := binary.AppendUvarint(nil, 4)
		v = append(v, 0)
		v = binary.AppendVarint(v, aid)
		v = binary.AppendVarint(v, (aid-1)/100000+1)
		v = binary.AppendVarint(v, 0)
		v = binary.AppendUvarint(v, 84)
		v = append(v, strings.Repeat(" ", 84)...)
		es[i] = Entry{Key: tableKey(16384, aid), Seq: uint64(1000 + i), Kind: KindValue,
			TS: 77, Value: v}
	}
	return es
}

// randomValues makes rows with 100 random bytes each: the incompressible
// case.
func randomValues(n int, rng *rand.Rand) []Entry {
	es := make([]Entry, n)
	for i := range es {
		v := make([]byte, 100)
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		es[i] = Entry{Key: tableKey(16390, int64(i)), Seq: uint64(i + 1), Kind: KindValue,
			TS: uint64(1 + rng.IntN(1000)), Value: v}
	}
	return es
}

var words = strings.Fields(`the of and to in is you that it he was for on are as with
his they at be this have from or one had by word but not what all were we when
your can said there use an each which she do how their if will up other about
out many then them these so some her would make like him into time has look two
more write go see number no way could people my than first water been call who
oil its now find long down day did get come made may part alice bob carol dave
erin frank grace heidi ivan judy mallory oscar peggy trent victor walter london
paris berlin tokyo lima cairo oslo rome madrid dublin vienna prague warsaw`)

// shortText makes rows of a few short text columns (a name, a city, a
// sentence of 3–9 words) and an integer, the shape of a typical OLTP table.
func shortText(n int, rng *rand.Rand) []Entry {
	es := make([]Entry, n)
	for i := range es {
		w := func() string { return words[rng.IntN(len(words))] }
		var sb strings.Builder
		for j := range 3 + rng.IntN(7) {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(w())
		}
		cols := []string{w() + " " + w(), w(), sb.String(), fmt.Sprintf("%s@%s.example", w(), w())}
		v := binary.AppendUvarint(nil, uint64(len(cols)+1))
		v = append(v, 0)
		v = binary.AppendVarint(v, int64(rng.IntN(1_000_000)))
		for _, c := range cols {
			v = binary.AppendUvarint(v, uint64(len(c)))
			v = append(v, c...)
		}
		es[i] = Entry{Key: tableKey(16400, int64(i)), Seq: uint64(i + 1), Kind: KindValue,
			TS: uint64(1 + rng.IntN(1000)), Value: v}
	}
	return es
}

// rawBlocks cuts entries into data blocks of about 32 KiB, as a Writer would.
func rawBlocks(es []Entry) [][]byte {
	var out [][]byte
	w := blockWriter{restartInterval: 16}
	for i := range es {
		if !w.empty() && w.size()+len(es[i].Key)+len(es[i].Value)+entryOverhead > 32<<10 {
			out = append(out, append([]byte(nil), w.finish()...))
			w.reset()
		}
		w.add(&es[i])
	}
	if !w.empty() {
		out = append(out, append([]byte(nil), w.finish()...))
	}
	return out
}
