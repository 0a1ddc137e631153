package types

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	// Zone names must resolve the same on every host, including containers
	// without /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// Date and time text formats. Input follows PostgreSQL's datetime.c in
// outline: the string is split into fields (ParseDateTime), and the fields
// are decoded left to right with a mask of what is already known
// (DecodeDateTime), which is what lets "1/2/2024", "2024-01-02",
// "Jan 2 2024" and "20240102" all mean the same day under DateStyle MDY.
// Output is DateStyle ISO.

// invalidTimeZoneDisplacement is SQLSTATE 22009, which pgerr does not name.
const invalidTimeZoneDisplacement = "22009"

// Limits of PostgreSQL's date and timestamp, as days or microseconds since
// 2000-01-01, and the units of its date arithmetic.
const (
	minDateDays     = -2451545             // 4714-11-24 BC, Julian day 0
	endDateDays     = 2147483494 - 2451545 // 5874898-01-01
	minTimestampUS  = -211813488000000000  // 4714-11-24 00:00:00 BC
	endTimestampUS  = 9223371331200000000  // 294277-01-01 00:00:00
	infinityDays    = math.MaxInt32        // DATEVAL_NOEND
	negInfinityDays = math.MinInt32        // DATEVAL_NOBEGIN
	maxTZDisplaceHr = 15                   // MAX_TZDISP_HOUR
	maxYearDigits   = 9                    // longer numbers are out of range, and never overflow Atoi
	microsPerSecond = 1000000
	usPerMinute     = 60 * microsPerSecond
	usPerHour       = 60 * usPerMinute
	usPerDay        = 24 * usPerHour
	secsPerMinute   = 60
	minutesPerHour  = 60
	hoursPerDay     = 24
	daysPerMonth    = 30 // an interval's month, when compared or justified
	monthsPerYear   = 12
)

// pgMicros returns the microseconds since 2000-01-01 of t, the timestamp
// representation; the infinities map to the int64 limits.
func pgMicros(t time.Time) int64 {
	switch {
	case t.Equal(TimeInfinity):
		return math.MaxInt64
	case t.Equal(TimeNegInfinity):
		return math.MinInt64
	}
	return (t.Unix()-pgEpochUnix)*microsPerSecond + int64(t.Nanosecond()/1000)
}

// fromPGMicros is the inverse of pgMicros.
func fromPGMicros(us int64) time.Time {
	switch us {
	case math.MaxInt64:
		return TimeInfinity
	case math.MinInt64:
		return TimeNegInfinity
	}
	sec, frac := floorDiv(us, microsPerSecond)
	return time.Unix(pgEpochUnix+sec, frac*1000).UTC()
}

// pgDays returns the days since 2000-01-01 of a date datum; the infinities
// map to the int32 limits.
func pgDays(t time.Time) int32 {
	switch {
	case t.Equal(TimeInfinity):
		return infinityDays
	case t.Equal(TimeNegInfinity):
		return negInfinityDays
	}
	d, _ := floorDiv(t.Unix()-pgEpochUnix, 86400)
	return int32(d)
}

// fromPGDays is the inverse of pgDays.
func fromPGDays(d int32) time.Time {
	switch d {
	case infinityDays:
		return TimeInfinity
	case negInfinityDays:
		return TimeNegInfinity
	}
	return time.Unix(pgEpochUnix+int64(d)*86400, 0).UTC()
}

// floorDiv returns the quotient rounded down and the non-negative remainder.
func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

func isInfinite(t time.Time) bool { return t.Equal(TimeInfinity) || t.Equal(TimeNegInfinity) }

// A dtErr says why date/time input was rejected; dtError turns it into the
// message PostgreSQL's DateTimeParseError gives.
type dtErr int

const (
	dtOK dtErr = iota
	dtBadFormat
	dtFieldOverflow
	dtMDFieldOverflow // the day or month is out of range: DateStyle may be wrong
	dtTZDispOverflow
)

func dtError(e dtErr, s, typ string) error {
	switch e {
	case dtFieldOverflow:
		return pgerr.New(pgerr.DatetimeFieldOverflow, `date/time field value out of range: "%s"`, s)
	case dtMDFieldOverflow:
		return pgerr.New(pgerr.DatetimeFieldOverflow, `date/time field value out of range: "%s"`, s).
			WithHint(`Perhaps you need a different "datestyle" setting.`)
	case dtTZDispOverflow:
		return pgerr.New(invalidTimeZoneDisplacement, `time zone displacement out of range: "%s"`, s)
	}
	return pgerr.New(pgerr.InvalidDatetimeFormat, `invalid input syntax for type %s: "%s"`, typ, s)
}

// dtField is one field of date/time input, as ParseDateTime splits it.
type dtField struct {
	kind byte   // fNumber, fDate, fTime, fTZ, fString, fSpecial
	text string // lower case
	orig string // as written, for time zone names
}

const (
	fNumber  = 'n'
	fDate    = 'd'
	fTime    = 't'
	fTZ      = 'z' // signed number: an offset
	fString  = 's'
	fSpecial = 'x' // signed word: -infinity
)

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// splitDateTime is ParseDateTime: it splits s into typed fields.
func splitDateTime(s string) ([]dtField, bool) {
	var fields []dtField
	i := 0
	scan := func(ok func(c byte) bool) {
		for i < len(s) && ok(s[i]) {
			i++
		}
	}
	for i < len(s) {
		c := s[i]
		start := i
		var kind byte
		switch {
		case isSpace(c):
			i++
			continue
		case isDigit(c):
			scan(isDigit)
			kind = fNumber
			if i < len(s) && s[i] == ':' {
				kind = fTime
				scan(func(c byte) bool { return isDigit(c) || c == ':' || c == '.' })
			} else if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				delim := s[i]
				i++
				if i < len(s) && isDigit(s[i]) {
					scan(isDigit)
					if delim != '.' {
						kind = fDate
					}
					if i < len(s) && s[i] == delim {
						kind = fDate
						scan(func(c byte) bool { return isDigit(c) || c == delim })
					}
				} else {
					kind = fDate
					scan(func(c byte) bool { return isDigit(c) || isAlpha(c) || c == delim })
				}
			}
		case c == '.':
			i++
			scan(isDigit)
			kind = fNumber
		case isAlpha(c):
			scan(isAlpha)
			kind = fString
			isDate := false
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				isDate = true
			} else if i < len(s) && (s[i] == '+' || isDigit(s[i])) {
				// A known word followed by a digit is a word and a
				// number (1d2h); anything else is a zone name like Etc/GMT+5.
				word := strings.ToLower(s[start:i])
				_, known := dateTokens[word]
				_, unit := intervalUnits[word]
				isDate = !known && !unit
			}
			if isDate {
				kind = fDate
				scan(func(c byte) bool {
					return c == '+' || c == '-' || c == '/' || c == '_' || c == '.' || c == ':' || isDigit(c) || isAlpha(c)
				})
			}
		case c == '+' || c == '-':
			i++
			scan(isSpace)
			switch {
			case i < len(s) && isDigit(s[i]):
				kind = fTZ
				scan(func(c byte) bool { return isDigit(c) || c == ':' || c == '.' || c == '-' })
			case i < len(s) && isAlpha(s[i]):
				kind = fSpecial
				scan(isAlpha)
			default:
				return nil, false
			}
		default:
			// Other punctuation only separates fields.
			i++
			continue
		}
		text := strings.Join(strings.Fields(s[start:i]), "")
		fields = append(fields, dtField{kind: kind, text: strings.ToLower(text), orig: text})
	}
	return fields, true
}

// Kinds of words in date/time input.
const (
	tokMonth = iota
	tokWeekday
	tokAM
	tokPM
	tokAD
	tokBC
	tokISOTime // "t" between date and time
	tokZone    // fixed-offset abbreviation
	tokSpecial // epoch, infinity, now, today, ...
	tokIgnore
)

type dateToken struct {
	kind  int
	value int // month number, or zone offset in seconds east of UTC
}

// dateTokens holds PostgreSQL's datetktbl words and, as zones, the common
// abbreviations of its Default timezone_abbreviations set.
var dateTokens = map[string]dateToken{
	"jan": {tokMonth, 1}, "january": {tokMonth, 1},
	"feb": {tokMonth, 2}, "february": {tokMonth, 2},
	"mar": {tokMonth, 3}, "march": {tokMonth, 3},
	"apr": {tokMonth, 4}, "april": {tokMonth, 4},
	"may": {tokMonth, 5},
	"jun": {tokMonth, 6}, "june": {tokMonth, 6},
	"jul": {tokMonth, 7}, "july": {tokMonth, 7},
	"aug": {tokMonth, 8}, "august": {tokMonth, 8},
	"sep": {tokMonth, 9}, "sept": {tokMonth, 9}, "september": {tokMonth, 9},
	"oct": {tokMonth, 10}, "october": {tokMonth, 10},
	"nov": {tokMonth, 11}, "november": {tokMonth, 11},
	"dec": {tokMonth, 12}, "december": {tokMonth, 12},

	"sun": {tokWeekday, 0}, "sunday": {tokWeekday, 0},
	"mon": {tokWeekday, 1}, "monday": {tokWeekday, 1},
	"tue": {tokWeekday, 2}, "tues": {tokWeekday, 2}, "tuesday": {tokWeekday, 2},
	"wed": {tokWeekday, 3}, "wednesday": {tokWeekday, 3}, "wednes": {tokWeekday, 3},
	"thu": {tokWeekday, 4}, "thur": {tokWeekday, 4}, "thurs": {tokWeekday, 4}, "thursday": {tokWeekday, 4},
	"fri": {tokWeekday, 5}, "friday": {tokWeekday, 5},
	"sat": {tokWeekday, 6}, "saturday": {tokWeekday, 6},

	"am": {tokAM, 0}, "a.m.": {tokAM, 0}, "pm": {tokPM, 0}, "p.m.": {tokPM, 0},
	"ad": {tokAD, 0}, "bc": {tokBC, 0},
	"t":  {tokISOTime, 0},
	"on": {tokIgnore, 0}, "at": {tokIgnore, 0},

	"epoch": {tokSpecial, 0}, "infinity": {tokSpecial, 0}, "now": {tokSpecial, 0},
	"today": {tokSpecial, 0}, "tomorrow": {tokSpecial, 0}, "yesterday": {tokSpecial, 0},

	"z": {tokZone, 0}, "zulu": {tokZone, 0}, "utc": {tokZone, 0}, "ut": {tokZone, 0},
	"gmt": {tokZone, 0}, "wet": {tokZone, 0}, "west": {tokZone, 3600},
	"bst": {tokZone, 3600}, "cet": {tokZone, 3600}, "cest": {tokZone, 7200},
	"met": {tokZone, 3600}, "mest": {tokZone, 7200},
	"eet": {tokZone, 7200}, "eest": {tokZone, 10800}, "msk": {tokZone, 10800},
	"jst": {tokZone, 32400}, "kst": {tokZone, 32400}, "hkt": {tokZone, 28800},
	"awst": {tokZone, 28800}, "acst": {tokZone, 34200}, "acdt": {tokZone, 37800},
	"aest": {tokZone, 36000}, "aedt": {tokZone, 39600},
	"nzst": {tokZone, 43200}, "nzdt": {tokZone, 46800},
	"ast": {tokZone, -14400}, "adt": {tokZone, -10800},
	"est": {tokZone, -18000}, "edt": {tokZone, -14400},
	"cst": {tokZone, -21600}, "cdt": {tokZone, -18000},
	"mst": {tokZone, -25200}, "mdt": {tokZone, -21600},
	"pst": {tokZone, -28800}, "pdt": {tokZone, -25200},
	"akst": {tokZone, -32400}, "akdt": {tokZone, -28800},
	"hst": {tokZone, -36000}, "nst": {tokZone, -12600}, "ndt": {tokZone, -9000},
}

// Field-mask bits of dtParse, as DTK_M in datetime.c.
const (
	mYear = 1 << iota
	mMonth
	mDay
	mHour
	mMinute
	mSecond
	mTZ
	mAMPM
	mBC
	mDate = mYear | mMonth | mDay
	mTime = mHour | mMinute | mSecond
)

// dtParse is decoded date/time input.
type dtParse struct {
	mask      int
	year, mon int
	mday      int
	hour, min int
	sec       int
	usec      int64
	is2digits bool
	textMonth bool
	bc        bool
	pm, am    bool
	offset    int            // seconds east of UTC, when mTZ is set and zone is nil
	zone      *time.Location // a named zone, when mTZ is set
	special   string         // epoch, infinity, -infinity, now, today, ...
}

// decodeDateTime is DecodeDateTime for the fields of s.
func decodeDateTime(s string) (*dtParse, dtErr, error) {
	fields, ok := splitDateTime(s)
	if !ok || len(fields) == 0 {
		return nil, dtBadFormat, nil
	}
	p := &dtParse{}
	for i, f := range fields {
		var e dtErr
		switch f.kind {
		case fDate:
			if p.mask&(mMonth|mDay) == mMonth|mDay && !isDigit(f.text[0]) {
				if p.mask&mTZ != 0 {
					return nil, dtBadFormat, nil
				}
				loc, err := loadZone(f.orig, f.text)
				if err != nil {
					return nil, dtOK, err
				}
				p.zone, p.mask = loc, p.mask|mTZ
				continue
			}
			e = p.decodeDate(f.text)
		case fTime:
			e = p.decodeTime(f.text)
		case fTZ:
			if p.mask&mTZ != 0 {
				return nil, dtBadFormat, nil
			}
			off, e2 := decodeTZ(f.text)
			if e2 != dtOK {
				return nil, e2, nil
			}
			p.offset, p.mask = off, p.mask|mTZ
		case fNumber:
			e = p.decodeNumberField(f.text)
		case fSpecial:
			if f.text != "-infinity" || len(fields) != 1 {
				return nil, dtBadFormat, nil
			}
			p.special = f.text
		case fString:
			tok, known := dateTokens[f.text]
			if !known {
				if p.mask&mTZ != 0 {
					return nil, dtBadFormat, nil
				}
				loc, err := loadZone(f.orig, f.text)
				if err != nil {
					return nil, dtBadFormat, nil
				}
				p.zone, p.mask = loc, p.mask|mTZ
				continue
			}
			switch tok.kind {
			case tokMonth:
				switch {
				case p.mask&mMonth == 0:
				case !p.textMonth && p.mask&mDay == 0 && p.mon >= 1 && p.mon <= 31:
					// A number already taken for the month was the day: 2 Jan 2024.
					p.mday, p.mask = p.mon, p.mask|mDay
				default:
					return nil, dtBadFormat, nil
				}
				p.mon, p.textMonth, p.mask = tok.value, true, p.mask|mMonth
			case tokAM, tokPM:
				if p.mask&mAMPM != 0 {
					return nil, dtBadFormat, nil
				}
				p.am, p.pm, p.mask = tok.kind == tokAM, tok.kind == tokPM, p.mask|mAMPM
			case tokAD, tokBC:
				if p.mask&mBC != 0 {
					return nil, dtBadFormat, nil
				}
				p.bc, p.mask = tok.kind == tokBC, p.mask|mBC
			case tokZone:
				if p.mask&mTZ != 0 {
					return nil, dtBadFormat, nil
				}
				p.offset, p.mask = tok.value, p.mask|mTZ
			case tokSpecial:
				if p.special != "" {
					return nil, dtBadFormat, nil
				}
				p.special = f.text
			case tokISOTime:
				if i+1 >= len(fields) || p.mask&mDate != mDate {
					return nil, dtBadFormat, nil
				}
			}
		}
		if e != dtOK {
			return nil, e, nil
		}
	}
	switch p.special {
	case "":
		return p, p.validate(), nil
	case "today", "tomorrow", "yesterday":
		// They give the date; a time may follow.
		if p.mask&^mTime != 0 || p.hour > hoursPerDay {
			return nil, dtBadFormat, nil
		}
		return p, dtOK, nil
	}
	// now, epoch and the infinities stand alone.
	if len(fields) != 1 {
		return nil, dtBadFormat, nil
	}
	return p, dtOK, nil
}

// decodeDate is DecodeDate: a field such as 2024-01-02, 1/2/2024 or
// 02-jan-2024. Month names are placed first, then numbers in order.
func (p *dtParse) decodeDate(s string) dtErr {
	var parts []string
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return !isDigit(byte(r)) && !isAlpha(byte(r)) }) {
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return dtBadFormat
	}
	var numbers []string
	for _, part := range parts {
		if isDigit(part[0]) {
			numbers = append(numbers, part)
			continue
		}
		tok, ok := dateTokens[part]
		if !ok {
			return dtBadFormat
		}
		switch tok.kind {
		case tokMonth:
			if p.mask&mMonth != 0 {
				return dtBadFormat
			}
			p.mon, p.textMonth, p.mask = tok.value, true, p.mask|mMonth
		case tokAD, tokBC:
			p.bc, p.mask = tok.kind == tokBC, p.mask|mBC
		default:
			return dtBadFormat
		}
	}
	for _, n := range numbers {
		if !allDigits(n) {
			return dtBadFormat
		}
		if e := p.decodeNumber(n); e != dtOK {
			return e
		}
	}
	return dtOK
}

// decodeNumberField decodes a lone number: YYYYMMDD or hhmmss run together
// when it is long, or one date field (decodeNumber). A fraction belongs to
// seconds run together (hhmmss.fff).
func (p *dtParse) decodeNumberField(s string) dtErr {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	switch {
	case hasFrac && p.mask&mDate == 0:
		return dtBadFormat
	case hasFrac && len(intPart) > 2 || len(s) >= 6 && (p.mask&mDate == 0 || p.mask&mTime == 0):
		return p.decodeRunTogether(intPart, frac, hasFrac)
	case hasFrac:
		return dtBadFormat
	}
	return p.decodeNumber(s)
}

// decodeRunTogether is DecodeNumberField: YYYYMMDD, YYMMDD, hhmmss or hhmm.
func (p *dtParse) decodeRunTogether(s, frac string, hasFrac bool) dtErr {
	if p.mask&mDate == 0 && !hasFrac && len(s) >= 6 {
		n := len(s)
		p.mday, _ = strconv.Atoi(s[n-2:])
		p.mon, _ = strconv.Atoi(s[n-4 : n-2])
		if n-4 > maxYearDigits {
			return dtFieldOverflow
		}
		p.year, _ = strconv.Atoi(s[:n-4])
		p.is2digits = n-4 == 2
		p.mask |= mDate
		return dtOK
	}
	if p.mask&mTime != mTime {
		switch len(s) {
		case 6:
			p.hour, _ = strconv.Atoi(s[:2])
			p.min, _ = strconv.Atoi(s[2:4])
			p.sec, _ = strconv.Atoi(s[4:])
			p.usec = fracMicros(frac)
			p.mask |= mTime
			return dtOK
		case 4:
			if hasFrac {
				return dtBadFormat
			}
			p.hour, _ = strconv.Atoi(s[:2])
			p.min, _ = strconv.Atoi(s[2:])
			p.mask |= mTime
			return dtOK
		}
	}
	return dtBadFormat
}

// decodeNumber is DecodeNumber: it decides whether a one-field number is a
// year, month or day from what is already known, under DateStyle MDY.
func (p *dtParse) decodeNumber(s string) dtErr {
	if len(s) > maxYearDigits {
		return dtFieldOverflow
	}
	val, _ := strconv.Atoi(s)
	flen := len(s)
	const (
		year = iota
		month
		day
	)
	var which int
	switch p.mask & mDate {
	case 0:
		which = month
		if flen >= 3 {
			which = year
		}
	case mYear:
		which = month
	case mMonth:
		which = day
		if p.textMonth && flen >= 3 {
			which = year
		}
	case mYear | mMonth:
		which = day
		if p.textMonth && flen >= 3 && p.is2digits {
			// The first number was the day after all: 02-jan-2024.
			p.mday, p.year, p.is2digits = p.year, val, false
			p.mask |= mDay
			return dtOK
		}
	case mDay:
		which = month
	case mMonth | mDay:
		which = year
	default:
		return p.decodeRunTogether(s, "", false)
	}
	switch which {
	case year:
		p.year, p.is2digits = val, flen <= 2
		p.mask |= mYear
	case month:
		p.mon = val
		p.mask |= mMonth
	case day:
		p.mday = val
		p.mask |= mDay
	}
	return dtOK
}

// decodeTime is DecodeTime: hh:mm, hh:mm:ss or hh:mm:ss.ffffff.
func (p *dtParse) decodeTime(s string) dtErr {
	if p.mask&mTime != 0 {
		return dtBadFormat
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return dtBadFormat
	}
	secText, frac, hasFrac := parts[len(parts)-1], "", false
	if len(parts) == 3 {
		secText, frac, hasFrac = strings.Cut(parts[2], ".")
	}
	for _, f := range []string{parts[0], parts[1], secText} {
		if f == "" || !allDigits(f) || len(f) > maxYearDigits {
			return dtBadFormat
		}
	}
	if hasFrac && !allDigits(frac) {
		return dtBadFormat
	}
	p.hour, _ = strconv.Atoi(parts[0])
	p.min, _ = strconv.Atoi(parts[1])
	if len(parts) == 3 {
		p.sec, _ = strconv.Atoi(secText)
		p.usec = fracMicros(frac)
	}
	if p.min > 59 || p.sec > 60 || p.hour > hoursPerDay {
		return dtFieldOverflow
	}
	p.mask |= mTime
	return dtOK
}

// fracMicros turns the digits after a decimal point into microseconds,
// rounding half to even as rint does.
func fracMicros(frac string) int64 {
	if frac == "" {
		return 0
	}
	f, _ := strconv.ParseFloat("0."+frac, 64)
	return int64(math.RoundToEven(f * microsPerSecond))
}

// decodeTZ is DecodeTimezone: +hh, +hhmm, +hh:mm or +hh:mm:ss, returning
// seconds east of UTC.
func decodeTZ(s string) (int, dtErr) {
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	body := s[1:]
	var hr, mn, sec int
	parts := strings.Split(body, ":")
	for _, f := range parts {
		if f == "" || !allDigits(f) || len(f) > maxYearDigits {
			return 0, dtBadFormat
		}
	}
	switch len(parts) {
	case 1:
		hr, _ = strconv.Atoi(body)
		if len(body) > 2 {
			hr, mn = hr/100, hr%100
		}
	case 2, 3:
		hr, _ = strconv.Atoi(parts[0])
		mn, _ = strconv.Atoi(parts[1])
		if len(parts) == 3 {
			sec, _ = strconv.Atoi(parts[2])
		}
	default:
		return 0, dtBadFormat
	}
	if hr > maxTZDisplaceHr || mn >= minutesPerHour || sec >= secsPerMinute {
		return 0, dtTZDispOverflow
	}
	return sign * ((hr*minutesPerHour+mn)*secsPerMinute + sec), dtOK
}

// validate is ValidateDate and the end of DecodeDateTime: it applies BC,
// two-digit years and AM/PM, and range-checks the fields.
func (p *dtParse) validate() dtErr {
	if p.mask&mDate != mDate {
		return dtBadFormat
	}
	switch {
	case p.bc:
		if p.year <= 0 {
			return dtFieldOverflow
		}
		p.year = -(p.year - 1)
	case p.is2digits:
		if p.year < 70 {
			p.year += 2000
		} else if p.year < 100 {
			p.year += 1900
		}
	case p.year <= 0:
		return dtFieldOverflow
	}
	if p.mon < 1 || p.mon > 12 || p.mday < 1 || p.mday > 31 {
		return dtMDFieldOverflow
	}
	if p.mday > daysIn(p.year, p.mon) {
		return dtFieldOverflow
	}
	if p.mask&mAMPM != 0 {
		if p.hour > 12 {
			return dtFieldOverflow
		}
		if p.am && p.hour == 12 {
			p.hour = 0
		} else if p.pm && p.hour != 12 {
			p.hour += 12
		}
	}
	if p.hour == hoursPerDay && (p.min != 0 || p.sec != 0 || p.usec != 0) {
		return dtFieldOverflow
	}
	return dtOK
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// days returns the decoded date as days since 2000-01-01.
func (p *dtParse) days() int64 {
	return time.Date(p.year, time.Month(p.mon), p.mday, 0, 0, 0, 0, time.UTC).Unix()/86400 - pgEpochUnix/86400
}

// wallMicros returns the decoded date and time as microseconds since
// 2000-01-01 on a clock with no zone. Hour 24 and second 60 carry over.
func (p *dtParse) wallMicros() int64 {
	return p.days()*usPerDay + p.timeMicros()
}

func (p *dtParse) timeMicros() int64 {
	return int64(p.hour)*usPerHour + int64(p.min)*usPerMinute + int64(p.sec)*microsPerSecond + p.usec
}

// localToUTC converts a wall-clock reading in loc (microseconds since
// 2000-01-01) to an instant, resolving daylight-saving transitions as
// PostgreSQL's DetermineTimeZoneOffset does: a time skipped by a
// spring-forward transition takes the offset from before it, and a time
// repeated by a fall-back transition takes the offset from after it.
func localToUTC(wall int64, loc *time.Location) int64 {
	wallSec, _ := floorDiv(wall, microsPerSecond)
	naive := wallSec + pgEpochUnix
	prev := time.Unix(naive-86400, 0).In(loc)
	_, before := prev.Zone()
	_, end := prev.ZoneBounds()
	off := before
	if !end.IsZero() {
		_, after := end.In(loc).Zone()
		boundary := end.Unix()
		beforeTime, afterTime := naive-int64(before), naive-int64(after)
		switch {
		case beforeTime < boundary && afterTime < boundary:
			// Before the transition either way.
		case beforeTime >= boundary && afterTime >= boundary:
			off = after
		case beforeTime <= afterTime:
			// The clock went back and shows this reading twice.
			off = after
		}
		// Otherwise the clock skipped this reading; keep the offset before.
	}
	return wall - int64(off)*microsPerSecond
}

var zoneCache sync.Map // lower-case name → *time.Location

// loadZone finds a time zone by name, ignoring case as PostgreSQL does;
// tzdata file names are mixed case, so a few spellings are tried.
func loadZone(orig, lower string) (*time.Location, error) {
	if loc, ok := zoneCache.Load(lower); ok {
		return loc.(*time.Location), nil
	}
	for _, name := range []string{orig, titleZone(lower), strings.ToUpper(lower)} {
		if loc, err := time.LoadLocation(name); err == nil && name != "" && name != "Local" {
			zoneCache.Store(lower, loc)
			return loc, nil
		}
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, `time zone "%s" not recognized`, lower)
}

// titleZone capitalizes each word of a zone name: america/new_york becomes
// America/New_York.
func titleZone(s string) string {
	b := []byte(s)
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == '/' || c == '_' || c == '-'
	}
	return string(b)
}

// LoadZone returns the time zone a session's TimeZone setting names, or a
// 22023 error, so that SET TIME ZONE accepts what timestamptz input does.
func LoadZone(name string) (*time.Location, error) {
	lower := strings.ToLower(name)
	if tok, ok := dateTokens[lower]; ok && tok.kind == tokZone && tok.value == 0 {
		return time.UTC, nil
	}
	return loadZone(name, lower)
}

// parseDate is date_in.
func parseDate(s string, loc *time.Location) (any, error) {
	p, e, err := decodeDateTime(s)
	if err != nil {
		return nil, err
	}
	if e != dtOK {
		return nil, dtError(e, s, "date")
	}
	if loc == nil {
		loc = time.UTC
	}
	var days int64
	switch p.special {
	case "infinity":
		return TimeInfinity, nil
	case "-infinity":
		return TimeNegInfinity, nil
	case "epoch":
		days = -10957
	case "now", "today", "tomorrow", "yesterday":
		days = todayIn(loc) + specialDayOffset(p.special)
	default:
		days = p.days()
	}
	if days < minDateDays || days >= endDateDays {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, `date out of range: "%s"`, s)
	}
	return fromPGDays(int32(days)), nil
}

func specialDayOffset(special string) int64 {
	switch special {
	case "tomorrow":
		return 1
	case "yesterday":
		return -1
	}
	return 0
}

// todayIn returns the current date in loc as days since 2000-01-01.
func todayIn(loc *time.Location) int64 {
	y, m, d := time.Now().In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()/86400 - pgEpochUnix/86400
}

// parseTimestamp is timestamp_in and timestamptz_in. For timestamp an offset
// or zone in the input is ignored, as in PostgreSQL.
func parseTimestamp(s string, tz bool, loc *time.Location) (any, error) {
	typ := "timestamp"
	if tz {
		typ = "timestamp with time zone"
	}
	p, e, err := decodeDateTime(s)
	if err != nil {
		return nil, err
	}
	if e != dtOK {
		return nil, dtError(e, s, typ)
	}
	if loc == nil {
		loc = time.UTC
	}
	var us int64
	switch p.special {
	case "infinity":
		return TimeInfinity, nil
	case "-infinity":
		return TimeNegInfinity, nil
	case "epoch":
		return time.Unix(0, 0).UTC(), nil
	case "now":
		t := time.Now().Truncate(time.Microsecond)
		if tz {
			return t.UTC(), nil
		}
		return wallClock(t.In(loc)), nil
	case "today", "tomorrow", "yesterday":
		us = (todayIn(loc)+specialDayOffset(p.special))*usPerDay + p.timeMicros()
		if tz {
			us = localToUTC(us, loc)
		}
	default:
		us = p.wallMicros()
		if tz {
			switch {
			case p.mask&mTZ != 0 && p.zone == nil:
				us -= int64(p.offset) * microsPerSecond
			case p.zone != nil:
				us = localToUTC(us, p.zone)
			default:
				us = localToUTC(us, loc)
			}
		}
	}
	if us < minTimestampUS || us >= endTimestampUS {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, `timestamp out of range: "%s"`, s)
	}
	return fromPGMicros(us), nil
}

// wallClock returns the wall-clock reading of t as a timestamp datum.
func wallClock(t time.Time) time.Time {
	_, off := t.Zone()
	return t.UTC().Add(time.Duration(off) * time.Second)
}

// appendDate is date_out in DateStyle ISO.
func appendDate(buf []byte, t time.Time) []byte {
	switch {
	case t.Equal(TimeInfinity):
		return append(buf, "infinity"...)
	case t.Equal(TimeNegInfinity):
		return append(buf, "-infinity"...)
	}
	y, m, d := t.Date()
	buf = appendYMD(buf, y, int(m), d)
	if y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendYMD appends YYYY-MM-DD, writing years before 1 AD as BC years.
func appendYMD(buf []byte, y, m, d int) []byte {
	if y <= 0 {
		y = 1 - y
	}
	buf = appendPadded(buf, y, 4)
	buf = append(buf, '-')
	buf = appendPadded(buf, m, 2)
	buf = append(buf, '-')
	return appendPadded(buf, d, 2)
}

func appendPadded(buf []byte, n, width int) []byte {
	var scratch [20]byte
	s := strconv.AppendInt(scratch[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// appendTimestamp is timestamp_out, or timestamptz_out when loc is not nil:
// the time is shown in loc followed by its offset (+05:30, or +05:53:28 for
// historical local mean times).
func appendTimestamp(buf []byte, t time.Time, loc *time.Location) []byte {
	switch {
	case t.Equal(TimeInfinity):
		return append(buf, "infinity"...)
	case t.Equal(TimeNegInfinity):
		return append(buf, "-infinity"...)
	}
	off := 0
	if loc != nil {
		t = t.In(loc)
		_, off = t.Zone()
	}
	y, m, d := t.Date()
	buf = appendYMD(buf, y, int(m), d)
	buf = append(buf, ' ')
	buf = appendPadded(buf, t.Hour(), 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, t.Minute(), 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, t.Second(), 2)
	buf = appendFraction(buf, int64(t.Nanosecond()/1000))
	if loc != nil {
		buf = appendOffset(buf, off)
	}
	if y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendFraction appends .ffffff without trailing zeros, or nothing.
func appendFraction(buf []byte, us int64) []byte {
	if us == 0 {
		return buf
	}
	var scratch [7]byte
	s := strconv.AppendInt(scratch[:0], us+microsPerSecond, 10)
	s[0] = '.'
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return append(buf, s...)
}

// appendOffset appends a UTC offset as +hh, +hh:mm or +hh:mm:ss.
func appendOffset(buf []byte, off int) []byte {
	if off < 0 {
		buf = append(buf, '-')
		off = -off
	} else {
		buf = append(buf, '+')
	}
	buf = appendPadded(buf, off/3600, 2)
	if off%3600 != 0 {
		buf = append(buf, ':')
		buf = appendPadded(buf, off/60%60, 2)
		if off%60 != 0 {
			buf = append(buf, ':')
			buf = appendPadded(buf, off%60, 2)
		}
	}
	return buf
}
