package types

import (
	"encoding/binary"
	"strings"
	"time"
)

// POSIX TZ strings, the TimeZone values that name no tz database zone:
// std offset [dst [offset] [,start[/time],end[/time]]], offsets hours
// west of UTC ("UTC+3", "<+07>-07", "CET-1CEST", "EST5EDT,M3.2.0,M11.1.0").
// PostgreSQL reads them with the tz code's parser. PosixZone checks the
// grammar here; the zone's clock, daylight saving included, is Go's own
// reading of the same string (see rulesZone).

// PosixZone reads a POSIX TZ string.
func PosixZone(v string) (*time.Location, bool) {
	p := &tzParser{s: v}
	std, ok := p.name()
	if !ok {
		return nil, false
	}
	stdOff, ok := p.offset()
	if !ok {
		return nil, false
	}
	if p.s == "" {
		return time.FixedZone(std, -stdOff), true
	}
	if dst, ok := p.name(); !ok || dst == "" {
		return nil, false
	}
	if p.offsetNext() {
		if _, ok := p.offset(); !ok {
			return nil, false
		}
	}
	if p.s != "" {
		for range 2 {
			if !p.consume(",") || !p.rule() {
				return nil, false
			}
		}
		if p.s != "" {
			return nil, false
		}
	}
	loc, err := rulesZone(v, v, std, -stdOff)
	return loc, err == nil
}

// tzParser reads a POSIX TZ string from s, which shrinks as it goes.
type tzParser struct{ s string }

func (p *tzParser) consume(prefix string) bool {
	if strings.HasPrefix(p.s, prefix) {
		p.s = p.s[len(prefix):]
		return true
	}
	return false
}

// name reads a zone abbreviation: letters, or anything within <>. Like
// PostgreSQL's parser, it takes names shorter than POSIX's three letters.
func (p *tzParser) name() (string, bool) {
	if p.consume("<") {
		end := strings.IndexByte(p.s, '>')
		if end < 0 {
			return "", false
		}
		name := p.s[:end]
		p.s = p.s[end+1:]
		return name, true
	}
	n := 0
	for n < len(p.s) && (p.s[n] >= 'A' && p.s[n] <= 'Z' || p.s[n] >= 'a' && p.s[n] <= 'z') {
		n++
	}
	name := p.s[:n]
	p.s = p.s[n:]
	return name, true
}

// offsetNext reports whether an offset starts at p.
func (p *tzParser) offsetNext() bool {
	return p.s != "" && (p.s[0] == '+' || p.s[0] == '-' || p.s[0] >= '0' && p.s[0] <= '9')
}

// offset reads [+-]hh[:mm[:ss]], in seconds, hours below a week.
func (p *tzParser) offset() (int, bool) {
	sign := 1
	if p.consume("-") {
		sign = -1
	} else {
		p.consume("+")
	}
	secs, ok := p.clock(MaxZoneHours - 1)
	return sign * secs, ok
}

// clock reads hh[:mm[:ss]], hours at most maxHours, in seconds.
func (p *tzParser) clock(maxHours int) (int, bool) {
	var parts []int
	for i, limit := range []int{maxHours, 59, 59} {
		if i > 0 && !p.consume(":") {
			break
		}
		n := 0
		for n < len(p.s) && n < 3 && p.s[n] >= '0' && p.s[n] <= '9' {
			n++
		}
		v, ok := zoneDigits(p.s[:n], 3)
		if !ok || v > limit {
			return 0, false
		}
		p.s = p.s[n:]
		parts = append(parts, v)
	}
	secs := parts[0] * 3600
	if len(parts) > 1 {
		secs += parts[1] * 60
	}
	if len(parts) > 2 {
		secs += parts[2]
	}
	return secs, true
}

// rule reads a daylight-saving rule: Jn, n or Mm.w.d, then /time.
func (p *tzParser) rule() bool {
	switch {
	case p.consume("J"), p.consume("j"):
		if !p.number(1, 365) {
			return false
		}
	case p.consume("M"), p.consume("m"):
		if !p.number(1, 12) || !p.consume(".") || !p.number(1, 5) || !p.consume(".") || !p.number(0, 6) {
			return false
		}
	default:
		if !p.number(0, 365) {
			return false
		}
	}
	if p.consume("/") {
		if !p.consume("-") {
			p.consume("+")
		}
		if _, ok := p.clock(MaxZoneHours - 1); !ok {
			return false
		}
	}
	return true
}

// number reads a decimal number in [lo, hi].
func (p *tzParser) number(lo, hi int) bool {
	n := 0
	for n < len(p.s) && n < 3 && p.s[n] >= '0' && p.s[n] <= '9' {
		n++
	}
	v, ok := zoneDigits(p.s[:n], 3)
	p.s = p.s[n:]
	return ok && v >= lo && v <= hi
}

// rulesZone is the zone that follows the POSIX TZ string tz, daylight
// saving included. Go applies such a string, the footer of a TZif file,
// to every time after the file's last transition; so the zone is a TZif
// file with one transition, at the start of time, to the standard time
// std (offset seconds east of UTC), and tz as its footer.
func rulesZone(name, tz, std string, offset int) (*time.Location, error) {
	chars := std + "\x00"
	header := func(b []byte, timecnt, typecnt, charcnt int) []byte {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		for _, n := range []int{0, 0, 0, timecnt, typecnt, charcnt} { // isut, isstd, leap, time, type, char
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		return b
	}
	ttinfo := func(b []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(int32(offset)))
		return append(b, 0, 0) // not DST; the abbreviation at 0
	}
	// Version 1 data, which a version 2 reader skips: the type alone.
	b := header(nil, 0, 1, len(chars))
	b = append(ttinfo(b), chars...)
	// Version 2 data: the one transition, to that type.
	b = header(b, 1, 1, len(chars))
	bigBang := int64(-1) << 59 // long before any time PostgreSQL takes
	b = binary.BigEndian.AppendUint64(b, uint64(bigBang))
	b = append(b, 0)
	b = append(ttinfo(b), chars...)
	b = append(b, '\n')
	b = append(b, tz...)
	b = append(b, '\n')
	return time.LoadLocationFromTZData(name, b)
}

// MaxZoneHours bounds a zone's offset, as PostgreSQL's tzparse does: a
// week, less a second.
const MaxZoneHours = 7 * 24

// zoneDigits reads 1 to max decimal digits.
func zoneDigits(s string, max int) (int, bool) {
	if s == "" || len(s) > max {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
