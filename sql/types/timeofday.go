package types

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// The time type (time without time zone). Its datum is an int64 of
// microseconds since midnight, from 0 to 24:00:00 inclusive, which is
// PostgreSQL's TimeADT and its binary format; comparison, hashing and the
// key and row encodings are those of int8.

// TimeEnd is 24:00:00, the largest time, in microseconds.
const TimeEnd = usPerDay

// parseTime is time_in, PostgreSQL's DecodeTimeOnly: hh:mm[:ss[.f]],
// hhmm[ss[.f]], mm:ss.f, with AM/PM, an ISO "T" prefix, a leading date
// (which is checked and dropped) and a time zone (which is dropped). The
// special words are "allballs" (midnight) and "now", the current time in
// loc.
func parseTime(s string, loc *time.Location) (any, error) {
	us, e, err := decodeTimeOnly(s, loc)
	if err != nil {
		return nil, err
	}
	if e != dtOK {
		return nil, dtError(e, s, "time")
	}
	return us, nil
}

func decodeTimeOnly(s string, loc *time.Location) (int64, dtErr, error) {
	fields, ok := splitDateTime(s)
	if !ok || len(fields) == 0 {
		return 0, dtBadFormat, nil
	}
	p := &dtParse{}
	var named *time.Location // a zone named in full, which may need the date
	isoTime := false         // a "t" came; the next field is the time
	last := len(fields) - 1
	// setMask claims fields of the value; each may be given once.
	setMask := func(m int) dtErr {
		if p.mask&m != 0 {
			return dtBadFormat
		}
		p.mask |= m
		return dtOK
	}
	for i, f := range fields {
		var e dtErr
		switch f.kind {
		case fDate:
			isoTime = false
			switch {
			case i == 0 && last >= 1 && (fields[last].kind == fDate || fields[1].kind == fTime):
				// A date is taken only first, before a time or a zone name.
				if e = p.decodeDate(f.text); e == dtOK && p.mask&mDate != mDate {
					e = dtBadFormat
				}
			case isDigit(f.text[0]):
				// hhmmss-zz: a run-together time and an offset.
				j := strings.IndexByte(f.text, '-')
				if p.mask&mTime == mTime || j < 0 {
					return 0, dtBadFormat, nil
				}
				if _, e = decodeTZ(f.text[j:]); e == dtOK {
					if e = p.runTogetherTime(f.text[:j]); e == dtOK {
						e = setMask(mTZ)
					}
				}
			default:
				zone, err := loadZone(f.orig, f.text)
				if err != nil {
					return 0, dtOK, err
				}
				named, e = zone, setMask(mTZ)
			}
		case fTime:
			isoTime = false
			e = p.decodeClock(f.text)
		case fTZ:
			if _, e = decodeTZ(f.text); e == dtOK {
				e = setMask(mTZ)
			}
		case fNumber:
			intPart, _, hasFrac := strings.Cut(f.text, ".")
			switch {
			case isoTime:
				isoTime = false
				e = p.runTogetherTime(f.text)
			case hasFrac && len(intPart) <= 2:
				e = dtBadFormat
			default:
				e = p.runTogetherTime(f.text)
			}
		case fString:
			switch f.text {
			case "allballs":
				p.hour, p.min, p.sec, p.usec = 0, 0, 0, 0
				e = setMask(mTime | mTZ)
			case "now":
				if e = setMask(mTime); e == dtOK {
					us := TimeOfDay(wallClock(time.Now().In(loc)))
					p.hour, p.min = int(us/usPerHour), int(us/usPerMinute%minutesPerHour)
					p.sec, p.usec = int(us/microsPerSecond%secsPerMinute), us%microsPerSecond
				}
			default:
				tok, known := dateTokens[f.text]
				if !known {
					zone, err := loadZone(f.orig, f.text)
					if err != nil {
						return 0, dtBadFormat, nil
					}
					named, e = zone, setMask(mTZ)
					break
				}
				switch tok.kind {
				case tokAM, tokPM:
					p.am, p.pm, e = tok.kind == tokAM, tok.kind == tokPM, setMask(mAMPM)
				case tokAD, tokBC:
					p.bc, e = tok.kind == tokBC, setMask(mBC)
				case tokZone:
					e = setMask(mTZ)
				case tokIgnore:
				case tokISOTime:
					if i == last || fields[i+1].kind != fNumber && fields[i+1].kind != fTime && fields[i+1].kind != fDate {
						return 0, dtBadFormat, nil
					}
					isoTime = true
				default:
					e = dtBadFormat
				}
			}
		default:
			e = dtBadFormat
		}
		if e != dtOK {
			return 0, e, nil
		}
	}
	if isoTime {
		return 0, dtBadFormat, nil
	}
	if p.mask&mDate == mDate {
		if e := p.validate(); e != dtOK {
			return 0, e, nil
		}
	} else if p.mask&mAMPM != 0 {
		if p.hour > 12 {
			return 0, dtFieldOverflow, nil
		}
		if p.am && p.hour == 12 {
			p.hour = 0
		} else if p.pm && p.hour != 12 {
			p.hour += 12
		}
	}
	if p.hour > hoursPerDay || p.min >= minutesPerHour || p.sec > secsPerMinute || p.usec > microsPerSecond {
		return 0, dtFieldOverflow, nil
	}
	us := p.timeMicros()
	if us > usPerDay {
		return 0, dtFieldOverflow, nil
	}
	if p.mask&mTime != mTime {
		return 0, dtBadFormat, nil
	}
	// A zone with daylight saving needs the date to know its offset, even
	// though the offset is then thrown away.
	if named != nil && p.mask&mDate != mDate && !fixedZone(named) {
		return 0, dtBadFormat, nil
	}
	return us, dtOK, nil
}

// fixedZone reports whether a zone has had one offset throughout.
func fixedZone(loc *time.Location) bool {
	_, end := time.Date(1, 1, 1, 0, 0, 0, 0, loc).ZoneBounds()
	return end.IsZero()
}

// decodeClock is DecodeTime: hh:mm, hh:mm:ss[.f], or mm:ss.f. A number
// missing between the colons reads as 0, as strtol leaves it.
func (p *dtParse) decodeClock(s string) dtErr {
	if p.mask&mTime != 0 {
		return dtBadFormat
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return dtBadFormat
	}
	nums := make([]int, len(parts))
	var frac string
	hasFrac := false
	for i, part := range parts {
		if i > 0 {
			part, frac, hasFrac = strings.Cut(part, ".")
			if hasFrac && i != len(parts)-1 {
				return dtBadFormat
			}
		}
		if !allDigits(part) || i == 0 && part == "" {
			return dtBadFormat
		}
		if part == "" {
			continue
		}
		n, err := strconv.ParseInt(part, 10, 32)
		if err != nil {
			return dtFieldOverflow
		}
		nums[i] = int(n)
	}
	if !allDigits(frac) {
		return dtBadFormat
	}
	switch {
	case len(parts) == 2 && hasFrac:
		// mm:ss.fff: minutes and seconds.
		p.hour, p.min, p.sec = 0, nums[0], nums[1]
	case len(parts) == 2:
		p.hour, p.min, p.sec = nums[0], nums[1], 0
	default:
		p.hour, p.min, p.sec = nums[0], nums[1], nums[2]
	}
	p.usec = fracMicros(frac)
	if p.min >= minutesPerHour || p.sec > secsPerMinute || p.usec > microsPerSecond {
		return dtFieldOverflow
	}
	p.mask |= mTime
	return dtOK
}

// runTogetherTime is DecodeNumberField once the date is known: hhmmss or
// hhmm, either with a fraction of a second.
func (p *dtParse) runTogetherTime(s string) dtErr {
	digits, frac, _ := strings.Cut(s, ".")
	if p.mask&mTime == mTime || !allDigits(digits) || !allDigits(frac) {
		return dtBadFormat
	}
	switch len(digits) {
	case 6:
		p.sec, _ = strconv.Atoi(digits[4:])
	case 4:
		p.sec = 0
	default:
		return dtBadFormat
	}
	p.hour, _ = strconv.Atoi(digits[:2])
	p.min, _ = strconv.Atoi(digits[2:4])
	p.usec = fracMicros(frac)
	p.mask |= mTime
	return dtOK
}

// appendTime is time_out: hh:mm:ss and the fraction without trailing zeros.
func appendTime(buf []byte, us int64) []byte {
	buf = appendPadded(buf, int(us/usPerHour), 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, int(us/usPerMinute%minutesPerHour), 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, int(us/microsPerSecond%secsPerMinute), 2)
	return appendFraction(buf, us%microsPerSecond)
}

// decodeTimeBinary is time_recv.
func decodeTimeBinary(us int64) (any, error) {
	if us < 0 || us > TimeEnd {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "time out of range")
	}
	return us, nil
}

// castTime is the casts to and from time other than through text: from
// timestamp and timestamptz (the time of day, in loc for timestamptz; an
// infinity gives NULL), from interval (its time part modulo a day), and
// to interval.
func castTime(v any, from, to T, loc *time.Location) (any, error) {
	switch {
	case from.Oid == OidTime && to.Oid == OidInterval:
		return Interval{Micros: v.(int64)}, nil
	case from.Oid == OidInterval && to.Oid == OidTime:
		_, us := floorDiv(v.(Interval).Micros, usPerDay)
		return us, nil
	case to.Oid == OidTime && (from.Oid == OidTimestamp || from.Oid == OidTimestamptz):
		t := v.(time.Time)
		if isInfinite(t) {
			return nil, nil
		}
		if from.Oid == OidTimestamptz {
			t = wallClock(t.In(loc))
		}
		_, us := floorDiv(pgMicros(t), usPerDay)
		return us, nil
	}
	return nil, errCannotCast(from, to)
}

// TimeOfDay returns the time of day, in microseconds, of a timestamp
// datum, which must be finite.
func TimeOfDay(t time.Time) int64 {
	_, us := floorDiv(pgMicros(t), usPerDay)
	return us
}

// AddToTime is time + interval (time_pl_interval): the interval's months
// and days are ignored and the time wraps around midnight, so that
// '23:00' + '2 hours' is 01:00.
func AddToTime(us int64, iv Interval) int64 {
	_, r := floorDiv(us+iv.Micros%usPerDay, usPerDay)
	return r
}

// MakeTime is make_time(hour, min, sec): the seconds may have a fraction,
// and the result may not pass 24:00:00.
func MakeTime(hour, min int64, sec float64) (int64, error) {
	us := math.RoundToEven(sec * microsPerSecond)
	if hour < 0 || hour > hoursPerDay || min < 0 || min >= minutesPerHour ||
		math.IsNaN(us) || us < 0 || us > secsPerMinute*microsPerSecond ||
		(hour*minutesPerHour+min)*usPerMinute+int64(us) > usPerDay {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", hour, min, formatSeconds(sec))
	}
	return (hour*minutesPerHour+min)*usPerMinute + int64(us), nil
}

// formatSeconds is C's %02g, as make_time's error message prints the
// seconds.
func formatSeconds(sec float64) string {
	switch {
	case math.IsNaN(sec):
		return "NaN"
	case math.IsInf(sec, 1):
		return "Infinity"
	case math.IsInf(sec, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(sec, 'g', 6, 64)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}
