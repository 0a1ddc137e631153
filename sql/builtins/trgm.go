package builtins

import (
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// The functions and operators of the pg_trgm extension, which resolve only
// while CREATE EXTENSION pg_trgm has installed them (Overload.Extension):
// similarity and the word similarities of two texts by the trigrams they
// share, show_trgm, set_limit and show_limit, and the operators % <% %>
// <<% %>> (similar enough, by the pg_trgm.*similarity_threshold settings)
// and <-> <<-> <->> <<<-> <->>> (one minus the similarity).
//
// The trigrams are PostgreSQL 15's (trgm_op.c) as it runs on x86-64 in a
// UTF-8 database under the C.UTF-8 locale: each word (a run of letters and
// digits) is lower-cased and padded with two spaces before and one after,
// every three consecutive characters of it are a trigram, and a trigram
// of more than three bytes is kept as three bytes of a hash of it, its
// legacy CRC-32 in little-endian order. Sets of trigrams are sorted by
// their bytes as signed chars, as x86's char compares, which decides
// show_trgm's order. Similarities are float4 and computed in float4, as
// pg_trgm computes them, so that they print the same.

func init() {
	t, f4, b := types.Text, types.Float4, types.Bool
	ops := map[string][]Overload{
		"%":     {{Args: textText, Ret: b, Volatility: Stable, Fn: similarityOp}},
		"<%":    {{Args: textText, Ret: b, Volatility: Stable, Fn: wordSimilarityOp(false, false)}},
		"%>":    {{Args: textText, Ret: b, Volatility: Stable, Fn: wordSimilarityOp(false, true)}},
		"<<%":   {{Args: textText, Ret: b, Volatility: Stable, Fn: wordSimilarityOp(true, false)}},
		"%>>":   {{Args: textText, Ret: b, Volatility: Stable, Fn: wordSimilarityOp(true, true)}},
		"<->":   {{Args: textText, Ret: f4, Fn: similarityDist}},
		"<<->":  {{Args: textText, Ret: f4, Fn: wordSimilarityDist(false, false)}},
		"<->>":  {{Args: textText, Ret: f4, Fn: wordSimilarityDist(false, true)}},
		"<<<->": {{Args: textText, Ret: f4, Fn: wordSimilarityDist(true, false)}},
		"<->>>": {{Args: textText, Ret: f4, Fn: wordSimilarityDist(true, true)}},
	}
	funcs := map[string][]Overload{
		"similarity":             {{Args: textText, Ret: f4, Fn: similarityFn}},
		"word_similarity":        {{Args: textText, Ret: f4, Fn: wordSimilarityFn(false)}},
		"strict_word_similarity": {{Args: textText, Ret: f4, Fn: wordSimilarityFn(true)}},
		"show_trgm":              {{Args: []types.T{t}, Ret: types.TextArray, Fn: showTrgm}},
		"set_limit":              {{Args: []types.T{f4}, Ret: f4, Volatility: Volatile, Fn: setLimit}},
		"show_limit":             {{Ret: f4, Volatility: Stable, Fn: showLimit}},
		// The functions behind the operators, which SQL may call too.
		"similarity_op":                             ops["%"],
		"word_similarity_op":                        ops["<%"],
		"word_similarity_commutator_op":             ops["%>"],
		"strict_word_similarity_op":                 ops["<<%"],
		"strict_word_similarity_commutator_op":      ops["%>>"],
		"similarity_dist":                           ops["<->"],
		"word_similarity_dist_op":                   ops["<<->"],
		"word_similarity_dist_commutator_op":        ops["<->>"],
		"strict_word_similarity_dist_op":            ops["<<<->"],
		"strict_word_similarity_dist_commutator_op": ops["<->>>"],
	}
	add := func(into, from map[string][]Overload) {
		for name, ovs := range from {
			ovs = slices.Clone(ovs)
			for i := range ovs {
				ovs[i].Extension = "pg_trgm"
			}
			into[name] = append(slices.Clip(into[name]), ovs...)
		}
	}
	add(operators, ops)
	add(table, funcs)
}

// The settings of the thresholds, which the session defines.
const (
	similarityThreshold       = "pg_trgm.similarity_threshold"
	wordSimilarityThreshold   = "pg_trgm.word_similarity_threshold"
	strictSimilarityThreshold = "pg_trgm.strict_word_similarity_threshold"
)

// CheckTrgmThreshold normalises a value of setting name, one of the
// thresholds: a real from 0 to 1, as PostgreSQL's real settings print
// (%g). The defaults, 0.3, 0.6 and 0.5, are float4 constants in
// pg_trgm, but no float4 lies between one and its double, so comparing
// a float4 similarity with either gives the same answer.
func CheckTrgmThreshold(name, v string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) {
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
	}
	if f < 0 || f > 1 {
		return "", pgerr.New(pgerr.InvalidParameterValue, "%s is outside the valid range for parameter \"%s\" (0 .. 1)", formatG(f, 0), name)
	}
	return formatG(f, 0), nil
}

// threshold is the value of setting name.
func threshold(env Env, name string) (float64, error) {
	v, err := env.Setting(name)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(v, 64)
}

// A trgm is a trigram: three bytes, as pg_trgm keeps one.
type trgm [3]byte

// cmpTrgm orders trigrams by their bytes as signed chars.
func cmpTrgm(a, b trgm) int {
	for i := range a {
		if x, y := int8(a[i]), int8(b[i]); x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Bounds of the words in a text's trigrams, for strict word similarity.
const (
	boundLeft  = 1 // the word's first trigram
	boundRight = 2 // its last
)

// trigrams are the trigrams of s in order, duplicates kept
// (generate_trgm_only), and with bounds, how each begins or ends a word.
func trigrams(s string, bounds bool) ([]trgm, []uint8) {
	var out []trgm
	var bnd []uint8
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isTrgmWordChar(r) {
			i += w
			continue
		}
		j := i
		for j < len(s) {
			r, w := utf8.DecodeRuneInString(s[j:])
			if !isTrgmWordChar(r) {
				break
			}
			j += w
		}
		first := len(out)
		out = appendTrigrams(out, "  "+strings.ToLower(s[i:j])+" ")
		if bounds {
			bnd = append(bnd, make([]uint8, len(out)-len(bnd))...)
			bnd[first] |= boundLeft
			bnd[len(out)-1] |= boundRight
		}
		i = j
	}
	return out, bnd
}

// isTrgmWordChar reports whether r is part of a word: an ASCII letter or
// digit, or a character iswalpha takes in C.UTF-8, which are Unicode's
// alphabetic ones and the other scripts' digits.
func isTrgmWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Nl, unicode.Other_Alphabetic)
}

// appendTrigrams appends the trigrams of word, a padded word: each run of
// three characters, hashed if it is longer than three bytes.
func appendTrigrams(out []trgm, word string) []trgm {
	var starts []int // the byte offset of each character
	for i := range word {
		starts = append(starts, i)
	}
	starts = append(starts, len(word))
	for k := 0; k+3 < len(starts); k++ {
		t := word[starts[k]:starts[k+3]]
		if len(t) == 3 {
			out = append(out, trgm{t[0], t[1], t[2]})
			continue
		}
		h := legacyCRC32(t)
		out = append(out, trgm{byte(h), byte(h >> 8), byte(h >> 16)})
	}
	return out
}

// crcTable is the table PostgreSQL's CRC-32 functions share.
var crcTable = crc32.MakeTable(crc32.IEEE)

// legacyCRC32 is PostgreSQL's pre-9.5 CRC-32 (pg_crc.h's LEGACY_CRC32),
// which feeds bytes in from the high end, against the reflected table.
func legacyCRC32(s string) uint32 {
	crc := ^uint32(0)
	for i := 0; i < len(s); i++ {
		crc = crcTable[byte(crc>>24)^s[i]] ^ crc<<8
	}
	return ^crc
}

// trigramSet is s's trigrams sorted, without duplicates (generate_trgm).
func trigramSet(s string) []trgm {
	t, _ := trigrams(s, false)
	slices.SortFunc(t, cmpTrgm)
	return slices.CompactFunc(t, func(a, b trgm) bool { return a == b })
}

// calcSimilarity is pg_trgm's CALCSML: the shared trigrams over all of
// them, in float4.
func calcSimilarity(count, len1, len2 int) float32 {
	return float32(count) / float32(len1+len2-count)
}

// similarity is the share of the trigrams of a and b that both have.
func similarity(a, b string) float32 {
	t1, t2 := trigramSet(a), trigramSet(b)
	if len(t1) == 0 || len(t2) == 0 {
		return 0
	}
	count := 0
	for i, j := 0, 0; i < len(t1) && j < len(t2); {
		switch c := cmpTrgm(t1[i], t2[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			i, j, count = i+1, j+1, count+1
		}
	}
	return calcSimilarity(count, len(t1), len(t2))
}

// wordSimilarity is the greatest similarity between the trigrams of a and
// those of a run of consecutive trigrams of b (calc_word_similarity); with
// strict, of a run that begins and ends at word bounds.
func wordSimilarity(a, b string, strict bool) float32 {
	t1, _ := trigrams(a, false)
	t2, bounds := trigrams(b, strict)
	// Number the distinct trigrams of both; found says which a has.
	type posTrgm struct {
		t     trgm
		index int // in t2, or -1 for one of a's
	}
	all := make([]posTrgm, 0, len(t1)+len(t2))
	for _, t := range t1 {
		all = append(all, posTrgm{t, -1})
	}
	for i, t := range t2 {
		all = append(all, posTrgm{t, i})
	}
	slices.SortFunc(all, func(x, y posTrgm) int {
		if c := cmpTrgm(x.t, y.t); c != 0 {
			return c
		}
		return x.index - y.index
	})
	indexes := make([]int, len(t2)) // the number of each trigram of b
	found := make([]bool, len(all))
	ulen1, j := 0, 0
	for i, p := range all {
		if i > 0 && cmpTrgm(all[i-1].t, p.t) != 0 {
			if found[j] {
				ulen1++
			}
			j++
		}
		if p.index >= 0 {
			indexes[p.index] = j
		} else {
			found[j] = true
		}
	}
	if len(all) > 0 && found[j] {
		ulen1++
	}
	return iterateWordSimilarity(indexes, found, ulen1, bounds, strict)
}

// iterateWordSimilarity walks b's trigrams (their numbers, indexes),
// moving the upper end of the run to each that a has (with strict, each
// that ends a word) and trying each lower end up to it (with strict, each
// that begins a word), as pg_trgm's iterate_word_similarity does, whose
// bookkeeping of what the run holds (lastpos, ulen2, count) this follows
// step by step so that the float4 results agree.
func iterateWordSimilarity(indexes []int, found []bool, ulen1 int, bounds []uint8, strict bool) float32 {
	ulen2, count, upper, lower := 0, 0, -1, -1
	if strict {
		lower = 0
	}
	var smlrMax float32
	lastpos := make([]int, len(found))
	for i := range lastpos {
		lastpos[i] = -1
	}
	for i, idx := range indexes {
		if lower >= 0 || found[idx] {
			if lastpos[idx] < 0 {
				ulen2++
				if found[idx] {
					count++
				}
			}
			lastpos[idx] = i
		}
		if strict && bounds[i]&boundRight == 0 || !strict && !found[idx] {
			continue
		}
		upper = i
		if lower == -1 {
			lower, ulen2 = i, 1
		}
		smlrCur := calcSimilarity(count, ulen1, ulen2)
		tmpCount, tmpUlen2, prevLower := count, ulen2, lower
		for tmpLower := lower; tmpLower <= upper; tmpLower++ {
			if !strict || bounds[tmpLower]&boundLeft != 0 {
				if s := calcSimilarity(tmpCount, ulen1, tmpUlen2); s > smlrCur {
					smlrCur, ulen2, lower, count = s, tmpUlen2, tmpLower, tmpCount
				}
			}
			if k := indexes[tmpLower]; lastpos[k] == tmpLower {
				tmpUlen2--
				if found[k] {
					tmpCount--
				}
			}
		}
		smlrMax = max(smlrMax, smlrCur)
		for tmpLower := prevLower; tmpLower < lower; tmpLower++ {
			if k := indexes[tmpLower]; lastpos[k] == tmpLower {
				lastpos[k] = -1
			}
		}
	}
	return smlrMax
}

func similarityFn(_ Env, a []any) (any, error) {
	return float64(similarity(a[0].(string), a[1].(string))), nil
}

func wordSimilarityFn(strict bool) func(Env, []any) (any, error) {
	return func(_ Env, a []any) (any, error) {
		return float64(wordSimilarity(a[0].(string), a[1].(string), strict)), nil
	}
}

// similarityOp is a % b: similar at least as pg_trgm.similarity_threshold
// says, a float4 compared as a double.
func similarityOp(env Env, a []any) (any, error) {
	limit, err := threshold(env, similarityThreshold)
	if err != nil {
		return nil, err
	}
	return float64(similarity(a[0].(string), a[1].(string))) >= limit, nil
}

// wordSimilarityOp is a <% b, or with commute b %> a (the word is on the
// other side); with strict, <<% and %>>.
func wordSimilarityOp(strict, commute bool) func(Env, []any) (any, error) {
	setting := wordSimilarityThreshold
	if strict {
		setting = strictSimilarityThreshold
	}
	return func(env Env, a []any) (any, error) {
		limit, err := threshold(env, setting)
		if err != nil {
			return nil, err
		}
		word, text := a[0].(string), a[1].(string)
		if commute {
			word, text = text, word
		}
		return float64(wordSimilarity(word, text, strict)) >= limit, nil
	}
}

// similarityDist is a <-> b: one minus their similarity, computed as a
// double and returned as a float4, as 1.0 - res is in C.
func similarityDist(_ Env, a []any) (any, error) {
	return float64(float32(1 - float64(similarity(a[0].(string), a[1].(string))))), nil
}

// wordSimilarityDist is <<-> (or with commute <->>), and with strict
// <<<-> and <->>>.
func wordSimilarityDist(strict, commute bool) func(Env, []any) (any, error) {
	return func(_ Env, a []any) (any, error) {
		word, text := a[0].(string), a[1].(string)
		if commute {
			word, text = text, word
		}
		return float64(float32(1 - float64(wordSimilarity(word, text, strict)))), nil
	}
}

// showTrgm is show_trgm(s): s's trigrams in order, those that are not
// three ASCII letters, digits or spaces as their three bytes in hex.
func showTrgm(_ Env, a []any) (any, error) {
	set := trigramSet(a[0].(string))
	out := make([]any, len(set))
	for i, t := range set {
		if printableTrgmChar(t[0]) && printableTrgmChar(t[1]) && printableTrgmChar(t[2]) {
			out[i] = string(t[:])
		} else {
			out[i] = fmt.Sprintf("0x%06x", uint32(t[0])<<16|uint32(t[1])<<8|uint32(t[2]))
		}
	}
	return out, nil
}

func printableTrgmChar(c byte) bool {
	return c == ' ' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// setLimit is set_limit(l), the deprecated way to set
// pg_trgm.similarity_threshold: to l as float4 prints it. It returns the
// threshold.
func setLimit(env Env, a []any) (any, error) {
	v := strconv.FormatFloat(a[0].(float64), 'g', -1, 32)
	if err := env.SetSetting(similarityThreshold, v, false); err != nil {
		return nil, err
	}
	return showLimit(env, nil)
}

// showLimit is show_limit(): pg_trgm.similarity_threshold as a float4.
func showLimit(env Env, _ []any) (any, error) {
	limit, err := threshold(env, similarityThreshold)
	if err != nil {
		return nil, err
	}
	return float64(float32(limit)), nil
}
