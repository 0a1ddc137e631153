package types

import (
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// What package sql's date and time functions (date_trunc, AT TIME ZONE,
// to_char, make_timestamp, ...) need of this package's representation.

// Micros returns the microseconds since 2000-01-01 of a timestamp datum;
// the infinities map to the int64 limits.
func Micros(t time.Time) int64 { return pgMicros(t) }

// FromMicros is the inverse of Micros.
func FromMicros(us int64) time.Time { return fromPGMicros(us) }

// Days returns the days since 2000-01-01 of a date datum.
func Days(t time.Time) int32 { return pgDays(t) }

// FromDays is the inverse of Days.
func FromDays(d int32) time.Time { return fromPGDays(d) }

// IsInfinite reports whether a date or timestamp datum is an infinity.
func IsInfinite(t time.Time) bool { return isInfinite(t) }

// TimestampInRange reports whether us (microseconds since 2000-01-01) is
// within PostgreSQL's timestamp range.
func TimestampInRange(us int64) bool { return us >= minTimestampUS && us < endTimestampUS }

// DateInRange reports whether days since 2000-01-01 are a valid date.
func DateInRange(days int64) bool { return days >= minDateDays && days < endDateDays }

// LocalToUTC converts a wall-clock reading in loc (microseconds since
// 2000-01-01) to an instant, as PostgreSQL's DetermineTimeZoneOffset
// resolves readings that daylight-saving transitions skip or repeat.
func LocalToUTC(wall int64, loc *time.Location) int64 { return localToUTC(wall, loc) }

// WallClock returns the wall-clock reading in loc of the instant t, as a
// timestamp datum.
func WallClock(t time.Time, loc *time.Location) time.Time { return wallClock(t.In(loc)) }

// ZoneAbbrev returns the offset, in seconds east of UTC, of a time zone
// abbreviation (lower case) that PostgreSQL's Default abbreviation set
// gives a fixed offset: est, cet, utc, ...
func ZoneAbbrev(lower string) (int, bool) {
	tok, ok := dateTokens[lower]
	if !ok || tok.kind != tokZone {
		return 0, false
	}
	return tok.value, true
}

// FindZone returns the zone a tz database name names, ignoring case, or
// nil if there is none.
func FindZone(name string) *time.Location {
	loc, err := loadZone(name, strings.ToLower(name))
	if err != nil {
		return nil
	}
	return loc
}

// DecodeOffset is DecodeTimezone: an offset written +hh, +hhmm, +hh:mm or
// +hh:mm:ss, in seconds east of UTC. ok is false if s is not of that form,
// and a 22023 error comes back if the offset is out of range.
func DecodeOffset(s string) (off int, ok bool, err error) {
	if s == "" || s[0] != '+' && s[0] != '-' {
		return 0, false, nil
	}
	off, e := decodeTZ(s)
	switch e {
	case dtOK:
		return off, true, nil
	case dtTZDispOverflow:
		return 0, true, pgerr.New(pgerr.InvalidParameterValue, `numeric time zone "%s" out of range`, s)
	}
	return 0, false, nil
}

// AppendIntervalText appends an interval as interval_out writes it.
func AppendIntervalText(buf []byte, iv Interval) []byte { return appendInterval(buf, iv) }
