package builtins

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// to_char, to_date, to_timestamp and to_number: the template patterns of
// PostgreSQL's formatting.c, for dates and times (YYYY, MM, Month, HH24,
// ... with the FM and TM prefixes and the TH suffix) and for numbers (9,
// 0, ., D, G, S, MI, PL, SG, PR, RN, V, EEEE, FM). The C locale's words and
// symbols are used: English names, "." and ",".

// A fmtNode is one element of a parsed template: a pattern (key) with
// its prefix and suffix flags, or a literal character.
type fmtNode struct {
	key    *fmtKey
	suffix int
	char   string
	kind   int
}

const (
	nodeAction = iota
	nodeChar
	nodeSpace
	nodeSeparator
)

// A fmtKey is a template pattern.
type fmtKey struct {
	name    string
	id      int
	isDigit bool // it reads digits, for to_timestamp's field widths
	mode    int  // the date convention it belongs to, for to_timestamp
}

const (
	modeNone = iota
	modeGregorian
	modeISOWeek
)

// Suffix flags of date/time patterns.
const (
	sufFM = 1 << iota
	sufTH
	sufth
	sufSP
	sufTM
)

// Date/time pattern ids. Variants that differ in case only share an id
// where PostgreSQL's do.
const (
	dchA_D = iota
	dchA_M
	dchAD
	dchAM
	dchB_C
	dchBC
	dchCC
	dchDAY
	dchDDD
	dchDD
	dchDY
	dchDay
	dchDy
	dchD
	dchFF1
	dchFF2
	dchFF3
	dchFF4
	dchFF5
	dchFF6
	dchFX
	dchHH24
	dchHH12
	dchHH
	dchIDDD
	dchID
	dchIW
	dchIYYY
	dchIYY
	dchIY
	dchI
	dchJ
	dchMI
	dchMM
	dchMONTH
	dchMON
	dchMS
	dchMonth
	dchMon
	dchOF
	dchP_M
	dchPM
	dchQ
	dchRM
	dchSSSS
	dchSS
	dchTZH
	dchTZM
	dchTZ
	dchUS
	dchWW
	dchW
	dchY_YYY
	dchYYYY
	dchYYY
	dchYY
	dchY
	dch_a_d
	dch_a_m
	dch_ad
	dch_am
	dch_b_c
	dch_bc
	dch_day
	dch_dy
	dch_month
	dch_mon
	dch_p_m
	dch_pm
	dch_rm
	dch_tz
)

// dchKeys are the date/time patterns in PostgreSQL's order: the first
// that is a prefix of the template wins, so longer ones come first.
var dchKeys = []fmtKey{
	{"A.D.", dchA_D, false, modeNone}, {"A.M.", dchA_M, false, modeNone}, {"AD", dchAD, false, modeNone},
	{"AM", dchAM, false, modeNone}, {"B.C.", dchB_C, false, modeNone}, {"BC", dchBC, false, modeNone},
	{"CC", dchCC, true, modeNone}, {"DAY", dchDAY, false, modeNone}, {"DDD", dchDDD, true, modeGregorian},
	{"DD", dchDD, true, modeGregorian}, {"DY", dchDY, false, modeNone}, {"Day", dchDay, false, modeNone},
	{"Dy", dchDy, false, modeNone}, {"D", dchD, true, modeGregorian},
	{"FF1", dchFF1, true, modeNone}, {"FF2", dchFF2, true, modeNone}, {"FF3", dchFF3, true, modeNone},
	{"FF4", dchFF4, true, modeNone}, {"FF5", dchFF5, true, modeNone}, {"FF6", dchFF6, true, modeNone},
	{"FX", dchFX, false, modeNone}, {"HH24", dchHH24, true, modeNone}, {"HH12", dchHH12, true, modeNone},
	{"HH", dchHH, true, modeNone}, {"IDDD", dchIDDD, true, modeISOWeek}, {"ID", dchID, true, modeISOWeek},
	{"IW", dchIW, true, modeISOWeek}, {"IYYY", dchIYYY, true, modeISOWeek}, {"IYY", dchIYY, true, modeISOWeek},
	{"IY", dchIY, true, modeISOWeek}, {"I", dchI, true, modeISOWeek}, {"J", dchJ, true, modeNone},
	{"MI", dchMI, true, modeNone}, {"MM", dchMM, true, modeGregorian}, {"MONTH", dchMONTH, false, modeGregorian},
	{"MON", dchMON, false, modeGregorian}, {"MS", dchMS, true, modeNone}, {"Month", dchMonth, false, modeGregorian},
	{"Mon", dchMon, false, modeGregorian}, {"OF", dchOF, false, modeNone}, {"P.M.", dchP_M, false, modeNone},
	{"PM", dchPM, false, modeNone}, {"Q", dchQ, true, modeNone}, {"RM", dchRM, false, modeGregorian},
	{"SSSSS", dchSSSS, true, modeNone}, {"SSSS", dchSSSS, true, modeNone}, {"SS", dchSS, true, modeNone},
	{"TZH", dchTZH, false, modeNone}, {"TZM", dchTZM, true, modeNone}, {"TZ", dchTZ, false, modeNone},
	{"US", dchUS, true, modeNone}, {"WW", dchWW, true, modeGregorian}, {"W", dchW, true, modeGregorian},
	{"Y,YYY", dchY_YYY, true, modeGregorian}, {"YYYY", dchYYYY, true, modeGregorian},
	{"YYY", dchYYY, true, modeGregorian}, {"YY", dchYY, true, modeGregorian}, {"Y", dchY, true, modeGregorian},
	{"a.d.", dch_a_d, false, modeNone}, {"a.m.", dch_a_m, false, modeNone}, {"ad", dch_ad, false, modeNone},
	{"am", dch_am, false, modeNone}, {"b.c.", dch_b_c, false, modeNone}, {"bc", dch_bc, false, modeNone},
	{"cc", dchCC, true, modeNone}, {"day", dch_day, false, modeNone}, {"ddd", dchDDD, true, modeGregorian},
	{"dd", dchDD, true, modeGregorian}, {"dy", dch_dy, false, modeNone}, {"d", dchD, true, modeGregorian},
	{"ff1", dchFF1, true, modeNone}, {"ff2", dchFF2, true, modeNone}, {"ff3", dchFF3, true, modeNone},
	{"ff4", dchFF4, true, modeNone}, {"ff5", dchFF5, true, modeNone}, {"ff6", dchFF6, true, modeNone},
	{"fx", dchFX, false, modeNone}, {"hh24", dchHH24, true, modeNone}, {"hh12", dchHH12, true, modeNone},
	{"hh", dchHH, true, modeNone}, {"iddd", dchIDDD, true, modeISOWeek}, {"id", dchID, true, modeISOWeek},
	{"iw", dchIW, true, modeISOWeek}, {"iyyy", dchIYYY, true, modeISOWeek}, {"iyy", dchIYY, true, modeISOWeek},
	{"iy", dchIY, true, modeISOWeek}, {"i", dchI, true, modeISOWeek}, {"j", dchJ, true, modeNone},
	{"mi", dchMI, true, modeNone}, {"mm", dchMM, true, modeGregorian}, {"month", dch_month, false, modeGregorian},
	{"mon", dch_mon, false, modeGregorian}, {"ms", dchMS, true, modeNone}, {"of", dchOF, false, modeNone},
	{"p.m.", dch_p_m, false, modeNone}, {"pm", dch_pm, false, modeNone}, {"q", dchQ, true, modeNone},
	{"rm", dch_rm, false, modeGregorian}, {"sssss", dchSSSS, true, modeNone}, {"ssss", dchSSSS, true, modeNone},
	{"ss", dchSS, true, modeNone}, {"tzh", dchTZH, false, modeNone}, {"tzm", dchTZM, true, modeNone},
	{"tz", dch_tz, false, modeNone}, {"us", dchUS, true, modeNone}, {"ww", dchWW, true, modeGregorian},
	{"w", dchW, true, modeGregorian}, {"y,yyy", dchY_YYY, true, modeGregorian}, {"yyyy", dchYYYY, true, modeGregorian},
	{"yyy", dchYYY, true, modeGregorian}, {"yy", dchYY, true, modeGregorian}, {"y", dchY, true, modeGregorian},
}

// Number pattern ids.
const (
	numComma = iota
	numDec
	num0
	num9
	numB
	numC
	numD
	numE
	numFM
	numG
	numL
	numMI
	numPL
	numPR
	numRN
	numSG
	numSP
	numS
	numTH
	numV
	num_rn
	num_th
)

var numKeys = []fmtKey{
	{name: ",", id: numComma}, {name: ".", id: numDec}, {name: "0", id: num0}, {name: "9", id: num9},
	{name: "B", id: numB}, {name: "C", id: numC}, {name: "D", id: numD}, {name: "EEEE", id: numE},
	{name: "FM", id: numFM}, {name: "G", id: numG}, {name: "L", id: numL}, {name: "MI", id: numMI},
	{name: "PL", id: numPL}, {name: "PR", id: numPR}, {name: "RN", id: numRN}, {name: "SG", id: numSG},
	{name: "SP", id: numSP}, {name: "S", id: numS}, {name: "TH", id: numTH}, {name: "V", id: numV},
	{name: "b", id: numB}, {name: "c", id: numC}, {name: "d", id: numD}, {name: "eeee", id: numE},
	{name: "fm", id: numFM}, {name: "g", id: numG}, {name: "l", id: numL}, {name: "mi", id: numMI},
	{name: "pl", id: numPL}, {name: "pr", id: numPR}, {name: "rn", id: num_rn}, {name: "sg", id: numSG},
	{name: "sp", id: numSP}, {name: "s", id: numS}, {name: "th", id: num_th}, {name: "v", id: numV},
}

func findKey(keys []fmtKey, s string) *fmtKey {
	for i := range keys {
		if strings.HasPrefix(s, keys[i].name) {
			return &keys[i]
		}
	}
	return nil
}

// isSeparatorChar is an ASCII punctuation character.
func isSeparatorChar(c byte) bool {
	return c > 0x20 && c < 0x7f && !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9')
}

func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// templates keeps parsed templates, date/time ones and number ones apart,
// as formatting.c keeps its DCH and NUM caches.
var templates memo[templateKey, *parsedTemplate]

type templateKey struct {
	s      string
	number bool
}

type parsedTemplate struct {
	nodes []fmtNode
	num   numDesc
	err   error
}

// parseCached returns the parsed template s, date/time or, with number,
// number patterns, and for numbers what they describe (a copy, for the
// caller to change).
func parseCached(s string, number bool) ([]fmtNode, numDesc, error) {
	p := templates.get(templateKey{s, number}, hashStrings(s, ""), func() *parsedTemplate {
		p := &parsedTemplate{}
		if number {
			p.nodes, p.err = parseTemplate(s, numKeys, &p.num)
		} else {
			p.nodes, p.err = parseTemplate(s, dchKeys, nil)
		}
		return p
	})
	return p.nodes, p.num, p.err
}

// parseTemplate is parse_format: it splits a template into patterns and
// literal characters. A "quoted" run is literal (a backslash quotes the
// next character); outside quotes a backslash only quotes a double quote.
// Date/time templates take FM and TM prefixes and TH, th and SP suffixes;
// num, for number templates, collects what the patterns describe.
func parseTemplate(s string, keys []fmtKey, num *numDesc) ([]fmtNode, error) {
	var nodes []fmtNode
	dch := num == nil
	for s != "" {
		suffix := 0
		if dch {
			for _, p := range []struct {
				s string
				f int
			}{{"FM", sufFM}, {"fm", sufFM}, {"TM", sufTM}, {"tm", sufTM}} {
				if strings.HasPrefix(s, p.s) {
					suffix = p.f
					s = s[2:]
					break
				}
			}
		}
		if s == "" {
			break
		}
		if k := findKey(keys, s); k != nil {
			s = s[len(k.name):]
			n := fmtNode{kind: nodeAction, key: k, suffix: suffix}
			if num != nil {
				if err := num.prepare(k.id); err != nil {
					return nil, err
				}
			}
			if dch {
				for _, p := range []struct {
					s string
					f int
				}{{"TH", sufTH}, {"th", sufth}, {"SP", sufSP}} {
					if strings.HasPrefix(s, p.s) {
						n.suffix |= p.f
						s = s[2:]
						break
					}
				}
			}
			nodes = append(nodes, n)
			continue
		}
		if s[0] == '"' {
			s = s[1:]
			for s != "" {
				if s[0] == '"' {
					s = s[1:]
					break
				}
				if s[0] == '\\' && len(s) > 1 {
					s = s[1:]
				}
				_, size := utf8.DecodeRuneInString(s)
				nodes = append(nodes, fmtNode{kind: nodeChar, char: s[:size]})
				s = s[size:]
			}
			continue
		}
		if s[0] == '\\' && len(s) > 1 && s[1] == '"' {
			s = s[1:]
		}
		_, size := utf8.DecodeRuneInString(s)
		kind := nodeChar
		switch {
		case dch && isSeparatorChar(s[0]):
			kind = nodeSeparator
		case isCSpace(s[0]):
			kind = nodeSpace
		}
		nodes = append(nodes, fmtNode{kind: kind, char: s[:size]})
		s = s[size:]
	}
	return nodes, nil
}

var (
	monthNames      = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	monthAbbrevs    = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	dayNames        = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	dayAbbrevs      = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	romanMonthsUp   = []string{"XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I"}
	romanMonthsDown = []string{"xii", "xi", "x", "ix", "viii", "vii", "vi", "v", "iv", "iii", "ii", "i"}
)

// ordinalSuffix is get_th: the English ordinal suffix of a number's text.
func ordinalSuffix(num string, upper bool) (string, error) {
	if num == "" || num[len(num)-1] < '0' || num[len(num)-1] > '9' {
		return "", pgerr.New(pgerr.InvalidTextRepresentation, "\"%s\" is not a number", num)
	}
	last := num[len(num)-1]
	if len(num) > 1 && num[len(num)-2] == '1' {
		last = 0
	}
	s := "th"
	switch last {
	case '1':
		s = "st"
	case '2':
		s = "nd"
	case '3':
		s = "rd"
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s, nil
}

// pick is yes if cond, else no.
func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func padNum(v int64, width int) string { return fmt.Sprintf("%0*d", width, v) }

// julianDay is date2j: the Julian day number of a date, with months and
// days out of range carried as PostgreSQL's arithmetic carries them.
func julianDay(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix()/86400 + 2440588
}

// julianToDate is j2date.
func julianToDate(j int64) (int, int, int) {
	y, m, d := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(j-2451545)).Date()
	return y, int(m), d
}

// isoWeek1 is isoweek2j(year, 1): the Julian day of the Monday of the
// first ISO week of year.
func isoWeek1(year int) int64 {
	day4 := julianDay(year, 1, 4)
	return day4 - (day4)%7 // j2day(day4-1) is the weekday of January 3, Sunday 0
}

// isoYearOf is date2isoyear.
func isoYearOf(y, m, d int) int {
	iy, _ := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).ISOWeek()
	return iy
}

func isoWeekOf(y, m, d int) int {
	_, w := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

// adjustYear is ADJUST_YEAR: a date's year as written, 1 BC for 0.
func adjustYear(y int, interval bool) int {
	if interval || y > 0 {
		return y
	}
	return -(y - 1)
}

func errIntervalFormat() error {
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid format specification for an interval value").
		WithHint("Intervals are not tied to specific calendar dates.")
}

// dchToChar is DCH_to_char: it writes f as the template says.
func dchToChar(nodes []fmtNode, f *tmFields, interval bool) (string, error) {
	var b strings.Builder
	for i := range nodes {
		n := &nodes[i]
		if n.kind != nodeAction {
			b.WriteString(n.char)
			continue
		}
		fm := n.suffix&sufFM != 0
		tm := n.suffix&sufTM != 0
		width := func(w int) int {
			if fm {
				return 0
			}
			return w
		}
		signed := func(v int64, w int) int {
			if fm {
				return 0
			}
			if v < 0 {
				return w + 1
			}
			return w
		}
		// num writes a number, with the ordinal suffix if asked for.
		num := func(s string) error {
			if n.suffix&(sufTH|sufth) != 0 {
				o, err := ordinalSuffix(s, n.suffix&sufTH != 0)
				if err != nil {
					return err
				}
				s += o
			}
			b.WriteString(s)
			return nil
		}
		// name writes a day or month name in the pattern's case, padded
		// to nine characters unless FM or TM.
		name := func(s string, upper, lower, pad bool) {
			switch {
			case upper:
				s = strings.ToUpper(s)
			case lower:
				s = strings.ToLower(s)
			}
			if pad && !fm && !tm {
				s = fmt.Sprintf("%-9s", s)
			}
			b.WriteString(s)
		}
		pm := f.hour%24 >= 12
		id := n.key.id
		switch id {
		case dchA_D, dchB_C, dchAD, dchBC, dch_a_d, dch_b_c, dch_ad, dch_bc, dchMONTH, dchMonth, dch_month,
			dchMON, dchMon, dch_mon, dchDAY, dchDay, dch_day, dchDY, dchDy, dch_dy, dchD, dchID,
			dchTZ, dch_tz, dchTZH, dchTZM, dchOF:
			if interval {
				return "", errIntervalFormat()
			}
		}
		var err error
		switch id {
		case dchA_M, dchP_M:
			b.WriteString(pick(pm, "P.M.", "A.M."))
		case dchAM, dchPM:
			b.WriteString(pick(pm, "PM", "AM"))
		case dch_a_m, dch_p_m:
			b.WriteString(pick(pm, "p.m.", "a.m."))
		case dch_am, dch_pm:
			b.WriteString(pick(pm, "pm", "am"))
		case dchHH, dchHH12:
			h := int64(f.hour % 12)
			if h == 0 {
				h = 12
			}
			err = num(padNum(h, signed(int64(f.hour), 2)))
		case dchHH24:
			err = num(padNum(int64(f.hour), signed(int64(f.hour), 2)))
		case dchMI:
			err = num(padNum(int64(f.min), signed(int64(f.min), 2)))
		case dchSS:
			err = num(padNum(int64(f.sec), signed(int64(f.sec), 2)))
		case dchFF1, dchFF2, dchFF3, dchFF4, dchFF5, dchFF6, dchMS, dchUS:
			digits := map[int]int{dchFF1: 1, dchFF2: 2, dchFF3: 3, dchFF4: 4, dchFF5: 5, dchFF6: 6, dchMS: 3, dchUS: 6}[id]
			err = num(padNum(f.usec/int64(math.Pow10(6-digits)), digits))
		case dchSSSS:
			err = num(strconv.FormatInt(int64(f.hour)*3600+int64(f.min)*60+int64(f.sec), 10))
		case dch_tz:
			b.WriteString(strings.ToLower(f.zone))
		case dchTZ:
			b.WriteString(f.zone)
		case dchTZH, dchTZM, dchOF:
			off := f.gmtoff
			sign := "+"
			if off < 0 {
				sign, off = "-", -off
			}
			switch id {
			case dchTZH:
				b.WriteString(sign + padNum(int64(off/3600), 2))
			case dchTZM:
				b.WriteString(padNum(int64(off%3600/60), 2))
			default:
				b.WriteString(sign + padNum(int64(off/3600), width(2)))
				if off%3600 != 0 {
					b.WriteString(":" + padNum(int64(off%3600/60), 2))
				}
			}
		case dchA_D, dchB_C:
			b.WriteString(pick(f.year <= 0, "B.C.", "A.D."))
		case dchAD, dchBC:
			b.WriteString(pick(f.year <= 0, "BC", "AD"))
		case dch_a_d, dch_b_c:
			b.WriteString(pick(f.year <= 0, "b.c.", "a.d."))
		case dch_ad, dch_bc:
			b.WriteString(pick(f.year <= 0, "bc", "ad"))
		case dchMONTH, dchMonth, dch_month:
			if f.mon != 0 {
				name(monthNames[f.mon-1], id == dchMONTH, id == dch_month, true)
			}
		case dchMON, dchMon, dch_mon:
			if f.mon != 0 {
				name(monthAbbrevs[f.mon-1], id == dchMON, id == dch_mon, false)
			}
		case dchMM:
			err = num(padNum(int64(f.mon), signed(int64(f.mon), 2)))
		case dchDAY, dchDay, dch_day:
			name(dayNames[f.wday], id == dchDAY, id == dch_day, true)
		case dchDY, dchDy, dch_dy:
			name(dayAbbrevs[f.wday], id == dchDY, id == dch_dy, false)
		case dchDDD, dchIDDD:
			v := int64(f.yday)
			if id == dchIDDD {
				v = julianDay(f.year, f.mon, f.mday) - isoWeek1(isoYearOf(f.year, f.mon, f.mday)) + 1
			}
			err = num(padNum(v, width(3)))
		case dchDD:
			err = num(padNum(int64(f.mday), width(2)))
		case dchD:
			err = num(strconv.Itoa(f.wday + 1))
		case dchID:
			d := f.wday
			if d == 0 {
				d = 7
			}
			err = num(strconv.Itoa(d))
		case dchWW:
			err = num(padNum(int64((f.yday-1)/7+1), width(2)))
		case dchIW:
			err = num(padNum(int64(isoWeekOf(f.year, f.mon, f.mday)), width(2)))
		case dchQ:
			if f.mon != 0 {
				err = num(strconv.Itoa((f.mon-1)/3 + 1))
			}
		case dchCC:
			var c int
			switch {
			case interval:
				c = f.year / 100
			case f.year > 0:
				c = (f.year-1)/100 + 1
			default:
				c = f.year/100 - 1
			}
			if c <= 99 && c >= -99 {
				err = num(padNum(int64(c), signed(int64(c), 2)))
			} else {
				err = num(strconv.Itoa(c))
			}
		case dchY_YYY:
			y := adjustYear(f.year, interval)
			err = num(fmt.Sprintf("%d,%03d", y/1000, y-y/1000*1000))
		case dchYYYY, dchIYYY, dchYYY, dchIYY, dchYY, dchIY, dchY, dchI:
			y := f.year
			switch id {
			case dchIYYY, dchIYY, dchIY, dchI:
				y = isoYearOf(f.year, f.mon, f.mday)
			}
			y = adjustYear(y, interval)
			w := int64(adjustYear(f.year, interval)) // the width follows the calendar year
			switch id {
			case dchYYYY, dchIYYY:
				err = num(padNum(int64(y), signed(w, 4)))
			case dchYYY, dchIYY:
				err = num(padNum(int64(y%1000), signed(w, 3)))
			case dchYY, dchIY:
				err = num(padNum(int64(y%100), signed(w, 2)))
			default:
				err = num(strconv.Itoa(y % 10))
			}
		case dchRM, dch_rm:
			if f.mon == 0 && f.year == 0 {
				break
			}
			var k int
			switch {
			case f.mon == 0:
				k = 0
				if f.year < 0 {
					k = 11
				}
			case f.mon < 0:
				k = -(f.mon + 1)
			default:
				k = 12 - f.mon
			}
			s := romanMonthsUp[k]
			if id == dch_rm {
				s = romanMonthsDown[k]
			}
			if !fm {
				s = fmt.Sprintf("%-4s", s)
			}
			b.WriteString(s)
		case dchW:
			err = num(strconv.Itoa((f.mday-1)/7 + 1))
		case dchJ:
			err = num(strconv.FormatInt(julianDay(f.year, f.mon, f.mday), 10))
		}
		if err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// toChar is to_char(value, template) for timestamps, timestamptzs (in
// the session's time zone), intervals and numbers. A date is read as a
// timestamptz and a time as an interval, by their implicit casts.
func toChar() []Overload {
	var ovs []Overload
	for _, t := range []types.T{types.Timestamp, types.Timestamptz, types.IntervalType,
		types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric} {
		// Stable, all of them: TM patterns follow lc_time.
		ovs = append(ovs, Overload{Args: []types.T{t, types.Text}, Ret: types.Text, Volatility: Stable,
			Fn: func(e Env, a []any) (any, error) { return formatChar(e, t, a[0], a[1].(string)) }})
	}
	return ovs
}

// formatChar is to_char of v, of type t.
func formatChar(e Env, t types.T, v any, tmpl string) (any, error) {
	switch v := v.(type) {
	case time.Time:
		if tmpl == "" || types.IsInfinite(v) {
			return nil, nil
		}
		var f tmFields
		if t.Oid == types.OidTimestamptz {
			local := v.In(e.Location())
			f = fieldsOf(types.WallClock(v, e.Location()))
			f.zone, f.gmtoff = local.Zone()
		} else {
			f = fieldsOf(v)
		}
		nodes, _, err := parseCached(tmpl, false)
		if err != nil {
			return nil, err
		}
		return dchToChar(nodes, &f, false)
	case types.Interval:
		if tmpl == "" {
			return nil, nil
		}
		iv := splitInterval(v)
		f := tmFields{year: int(iv.year), mon: int(iv.mon), mday: int(iv.mday), hour: int(iv.hour), min: int(iv.min),
			sec: int(iv.sec), usec: iv.usec}
		f.yday = (f.year*12+f.mon)*30 + f.mday
		nodes, _, err := parseCached(tmpl, false)
		if err != nil {
			return nil, err
		}
		return dchToChar(nodes, &f, true)
	}
	return numToChar(t, v, tmpl)
}

// numDesc is NUMDesc: what a number template asks for.
type numDesc struct {
	pre, post   int // digits before and after the decimal point
	lsign       int // where S puts the sign
	preLsignNum int
	multi       int // digits after V
	zeroStart   int // the first and last 0 pattern
	zeroEnd     int
	flag        int
}

const (
	nfDecimal = 1 << iota
	nfLDecimal
	nfZero
	nfBlank
	nfFillMode
	nfLSign
	nfBracket
	nfMinus
	nfPlus
	nfRoman
	nfMulti
	nfEEEE
)

const (
	lsignNone = 0
	lsignPre  = -1
	lsignPost = 1
)

func (d *numDesc) is(f int) bool { return d.flag&f != 0 }

func numSyntax(msg string) *pgerr.Error { return pgerr.New(pgerr.SyntaxError, "%s", msg) }

// prepare is NUMDesc_prepare.
func (d *numDesc) prepare(id int) error {
	if d.is(nfEEEE) && id != numE {
		return numSyntax(`"EEEE" must be the last pattern used`)
	}
	switch id {
	case num9:
		if d.is(nfBracket) {
			return numSyntax(`"9" must be ahead of "PR"`)
		}
		switch {
		case d.is(nfMulti):
			d.multi++
		case d.is(nfDecimal):
			d.post++
		default:
			d.pre++
		}
	case num0:
		if d.is(nfBracket) {
			return numSyntax(`"0" must be ahead of "PR"`)
		}
		if !d.is(nfZero) && !d.is(nfDecimal) {
			d.flag |= nfZero
			d.zeroStart = d.pre + 1
		}
		if !d.is(nfDecimal) {
			d.pre++
		} else {
			d.post++
		}
		d.zeroEnd = d.pre + d.post
	case numB:
		if d.pre == 0 && d.post == 0 && !d.is(nfZero) {
			d.flag |= nfBlank
		}
	case numD, numDec:
		if id == numD {
			d.flag |= nfLDecimal
		}
		if d.is(nfDecimal) {
			return numSyntax("multiple decimal points")
		}
		if d.is(nfMulti) {
			return numSyntax(`cannot use "V" and decimal point together`)
		}
		d.flag |= nfDecimal
	case numFM:
		d.flag |= nfFillMode
	case numS:
		if d.is(nfLSign) {
			return numSyntax(`cannot use "S" twice`)
		}
		if d.is(nfPlus) || d.is(nfMinus) || d.is(nfBracket) {
			return numSyntax(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !d.is(nfDecimal) {
			d.lsign = lsignPre
			d.preLsignNum = d.pre
			d.flag |= nfLSign
		} else if d.lsign == lsignNone {
			d.lsign = lsignPost
			d.flag |= nfLSign
		}
	case numMI:
		if d.is(nfLSign) {
			return numSyntax(`cannot use "S" and "MI" together`)
		}
		d.flag |= nfMinus
	case numPL:
		if d.is(nfLSign) {
			return numSyntax(`cannot use "S" and "PL" together`)
		}
		d.flag |= nfPlus
	case numSG:
		if d.is(nfLSign) {
			return numSyntax(`cannot use "S" and "SG" together`)
		}
		d.flag |= nfMinus | nfPlus
	case numPR:
		if d.is(nfLSign) || d.is(nfPlus) || d.is(nfMinus) {
			return numSyntax(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		d.flag |= nfBracket
	case numRN, num_rn:
		d.flag |= nfRoman
	case numV:
		if d.is(nfDecimal) {
			return numSyntax(`cannot use "V" and decimal point together`)
		}
		d.flag |= nfMulti
	case numE:
		if d.is(nfEEEE) {
			return numSyntax(`cannot use "EEEE" twice`)
		}
		if d.is(nfBlank) || d.is(nfFillMode) || d.is(nfLSign) || d.is(nfBracket) || d.is(nfMinus) || d.is(nfPlus) ||
			d.is(nfRoman) || d.is(nfMulti) {
			return numSyntax(`"EEEE" is incompatible with other formats`).
				WithDetail(`"EEEE" may only be used together with digit and decimal point patterns.`)
		}
		d.flag |= nfEEEE
	}
	return nil
}

// toRoman is int_to_roman: 1 to 3999, else fifteen #s.
func toRoman(n int64) string {
	if n < 1 || n > 3999 {
		return strings.Repeat("#", 15)
	}
	ones := []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	tens := []string{"X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	hundreds := []string{"C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
	var b strings.Builder
	b.WriteString(strings.Repeat("M", int(n/1000)))
	for _, p := range []struct {
		d     int64
		names []string
	}{{n / 100 % 10, hundreds}, {n / 10 % 10, tens}, {n % 10, ones}} {
		if p.d > 0 {
			b.WriteString(p.names[p.d-1])
		}
	}
	return b.String()
}

// numToChar is numeric_to_char, int4_to_char, int8_to_char,
// float4_to_char and float8_to_char: the number's digits, sign and the
// padding the template asks for are prepared here, and numProcess lays
// them out.
func numToChar(t types.T, v any, tmpl string) (any, error) {
	if tmpl == "" {
		return "", nil
	}
	nodes, d, err := parseCached(tmpl, true)
	if err != nil {
		return nil, err
	}
	var numstr string
	sign := byte(0)
	prePad := 0
	// pad finishes numstr (digits, no sign) against the template: short
	// of pre digits it is padded, beyond them it overflows into #s.
	pad := func(s string) {
		preLen := len(s)
		if i := strings.IndexByte(s, '.'); i >= 0 {
			preLen = i
		}
		switch {
		case preLen < d.pre:
			prePad = d.pre - preLen
		case preLen > d.pre:
			b := []byte(strings.Repeat("#", d.pre+d.post+1))
			b[d.pre] = '.'
			s = string(b)
		}
		numstr = s
	}
	splitSign := func(s string) string {
		if strings.HasPrefix(s, "-") {
			sign = '-'
			return s[1:]
		}
		sign = '+'
		return s
	}
	switch x := v.(type) {
	case int64:
		switch {
		case d.is(nfRoman):
			if x > math.MaxInt32 || x < math.MinInt32 {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
			}
			numstr = toRoman(x)
		case d.is(nfEEEE):
			if t.Oid == types.OidInt8 {
				numstr = sciNumeric(apd.New(x, 0), d.post)
			} else {
				numstr = sciFloat(float64(x), d.post)
			}
		default:
			if d.is(nfMulti) {
				x *= int64(math.Pow10(d.multi))
				if t.Oid == types.OidInt4 {
					x = int64(int32(x))
				}
				d.pre += d.multi
			}
			s := splitSign(strconv.FormatInt(x, 10))
			preLen := len(s)
			if d.post > 0 {
				s += "." + strings.Repeat("0", d.post)
			}
			numstr = s
			if preLen < d.pre {
				prePad = d.pre - preLen
			} else if preLen > d.pre {
				pad(s)
			}
		}
	case float64:
		maxDigits := 15
		if t.Oid == types.OidFloat4 {
			maxDigits = 6
		}
		switch {
		case d.is(nfRoman):
			r := math.RoundToEven(x)
			n := int64(math.MaxInt32)
			if !math.IsNaN(r) && r >= math.MinInt32 && r <= math.MaxInt32 {
				n = int64(r)
			}
			numstr = toRoman(n)
		case d.is(nfEEEE):
			if math.IsNaN(x) || math.IsInf(x, 0) {
				numstr = hashSci(d)
			} else {
				numstr = sciFloat(x, d.post)
			}
		default:
			val := x
			if d.is(nfMulti) {
				val = x * math.Pow10(d.multi)
				if t.Oid == types.OidFloat4 {
					val = float64(float32(x) * float32(math.Pow10(d.multi)))
				}
				d.pre += d.multi
			}
			preLen := len(cFloat(math.Abs(val), 0))
			if preLen >= maxDigits {
				d.post = 0
			} else if preLen+d.post > maxDigits {
				d.post = maxDigits - preLen
			}
			pad(splitSign(cFloat(val, d.post)))
		}
	case *apd.Decimal:
		switch {
		case d.is(nfRoman):
			// numeric_int4: rounded, and an error beyond int4.
			switch x.Form {
			case apd.NaN, apd.NaNSignaling:
				return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to integer")
			case apd.Infinite:
				return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to integer")
			}
			r := new(apd.Decimal)
			if _, err := NumericContext.RoundToIntegralValue(r, x); err != nil {
				return nil, err
			}
			n, err := r.Int64()
			if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
			}
			numstr = toRoman(n)
		case d.is(nfEEEE):
			if x.Form != apd.Finite {
				numstr = hashSci(d)
			} else {
				numstr = sciNumeric(x, d.post)
			}
		default:
			val := x
			if d.is(nfMulti) {
				val = new(apd.Decimal)
				if _, err := NumericContext.Mul(val, x, apd.New(1, int32(d.multi))); err != nil {
					return nil, err
				}
				d.pre += d.multi
			}
			r := new(apd.Decimal)
			if val.Form == apd.Finite {
				if _, err := NumericContext.Quantize(r, val, int32(-d.post)); err != nil {
					return nil, err
				}
			} else {
				r.Set(val)
			}
			pad(splitSign(string(types.AppendText(nil, types.Numeric, r, nil))))
		}
	}
	return numProcess(nodes, &d, numstr, prePad, sign)
}

// cFloat is %.*f as PostgreSQL's own snprintf writes it.
func cFloat(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'f', prec, 64)
}

// sciFloat is C's %+.*e with the plus sign a space.
func sciFloat(f float64, prec int) string {
	s := strconv.FormatFloat(f, 'e', prec, 64)
	if s[0] != '-' {
		s = " " + s
	}
	return s
}

// sciNumeric is numeric_out_sci with the plus sign a space: the
// significand is rounded after the exponent is chosen, so 99999 to two
// places is 10.00e+04, as in PostgreSQL.
func sciNumeric(x *apd.Decimal, prec int) string {
	exp := int64(0)
	if !x.IsZero() {
		exp = int64(x.NumDigits()) + int64(x.Exponent) - 1
	}
	sig := new(apd.Decimal)
	sig.Set(x)
	sig.Exponent -= int32(exp)
	r := new(apd.Decimal)
	_, _ = NumericContext.Quantize(r, sig, int32(-prec))
	s := r.Text('f')
	if x.Negative && !strings.HasPrefix(s, "-") {
		s = "-" + s
	}
	if !strings.HasPrefix(s, "-") {
		s = " " + s
	}
	es := strconv.FormatInt(exp, 10)
	if exp < 0 {
		es = es[1:]
	}
	if len(es) < 2 {
		es = "0" + es
	}
	if exp < 0 {
		return s + "e-" + es
	}
	return s + "e+" + es
}

// hashSci is what EEEE shows of NaN and infinities.
func hashSci(d numDesc) string {
	b := []byte(strings.Repeat("#", d.pre+d.post+6))
	b[0] = ' '
	b[d.pre+1] = '.'
	return string(b)
}

// numProcess is NUM_processor's to_char half: it lays the digits of
// number (no sign; a '.' between the integer and fraction digits) out
// along the template, prePad being how many leading digit positions
// the number leaves blank.
func numProcess(nodes []fmtNode, d *numDesc, number string, prePad int, sign byte) (string, error) {
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.is(nfEEEE) {
		return number, nil
	}
	if d.is(nfRoman) {
		fill := d.flag & nfFillMode
		*d = numDesc{flag: fill | nfRoman}
		prePad, sign = 0, 0
	}
	var out []byte
	signWrote := false
	if d.is(nfPlus) || d.is(nfMinus) {
		signWrote = !(d.is(nfPlus) && !d.is(nfMinus))
	} else {
		if sign != '-' && d.is(nfFillMode) {
			d.flag &^= nfBracket
		}
		signWrote = sign == '+' && d.is(nfFillMode) && !d.is(nfLSign)
		if d.lsign == lsignPre && d.pre == d.preLsignNum {
			d.lsign = lsignPost
		}
	}
	numCount := d.post + d.pre - 1
	lastRelevant := -1
	if d.is(nfFillMode) && d.is(nfDecimal) {
		if i := strings.IndexByte(number, '.'); i >= 0 {
			lastRelevant = i
			for j := i + 1; j < len(number); j++ {
				if number[j] != '0' {
					lastRelevant = j
				}
			}
			if d.zeroEnd > prePad {
				lastZero := min(len(number)-1, d.zeroEnd-prePad)
				if lastRelevant < lastZero {
					lastRelevant = lastZero
				}
			}
		}
	}
	if !signWrote && prePad == 0 {
		numCount++
	}
	numIn := false
	numCurr := 0
	p := 0 // the next character of number
	at := func(i int) byte {
		if i < len(number) {
			return number[i]
		}
		return 0
	}
	writeSign := func() {
		if sign == '-' {
			out = append(out, '-')
		} else {
			out = append(out, '+')
		}
	}
	predecSpace := func() bool {
		return !d.is(nfZero) && p == 0 && at(0) == '0' && d.post != 0
	}
	digit := func(id int) {
		if d.is(nfRoman) {
			return
		}
		numIn = false
		if !signWrote && (numCurr >= prePad || d.is(nfZero) && d.zeroStart == numCurr) &&
			(!predecSpace() || lastRelevant >= 0 && at(lastRelevant) == '.') {
			switch {
			case d.is(nfLSign):
				if d.lsign == lsignPre {
					writeSign()
					signWrote = true
				}
			case d.is(nfBracket):
				if sign == '+' {
					out = append(out, ' ')
				} else {
					out = append(out, '<')
				}
				signWrote = true
			case sign == '+':
				if !d.is(nfFillMode) {
					out = append(out, ' ')
				}
				signWrote = true
			case sign == '-':
				out = append(out, '-')
				signWrote = true
			}
		}
		switch {
		case numCurr < prePad && (d.zeroStart > numCurr || !d.is(nfZero)):
			if !d.is(nfFillMode) {
				out = append(out, ' ')
			}
		case d.is(nfZero) && numCurr < prePad && d.zeroStart <= numCurr:
			out = append(out, '0')
			numIn = true
		default:
			if at(p) == '.' {
				if lastRelevant < 0 || at(lastRelevant) != '.' || d.is(nfFillMode) {
					out = append(out, '.')
				}
			} else {
				switch {
				case lastRelevant >= 0 && p > lastRelevant && id != num0:
				case predecSpace():
					if !d.is(nfFillMode) {
						out = append(out, ' ')
					} else if lastRelevant >= 0 && at(lastRelevant) == '.' {
						out = append(out, '0')
					}
				default:
					out = append(out, at(p))
					numIn = true
				}
			}
			if p < len(number) {
				p++
			}
		}
		end := numCount
		if prePad > 0 {
			end++
		}
		if d.is(nfDecimal) {
			end++
		}
		if lastRelevant >= 0 && lastRelevant == p {
			end = numCurr
		}
		if numCurr+1 == end {
			switch {
			case signWrote && d.is(nfBracket):
				if sign == '+' {
					out = append(out, ' ')
				} else {
					out = append(out, '>')
				}
			case d.is(nfLSign) && d.lsign == lsignPost:
				writeSign()
			}
		}
		numCurr++
	}
	for _, n := range nodes {
		if n.kind != nodeAction {
			out = append(out, n.char...)
			continue
		}
		switch n.key.id {
		case num9, num0, numDec, numD:
			digit(n.key.id)
		case numComma, numG:
			switch {
			case numIn:
				out = append(out, ',')
			case !d.is(nfFillMode):
				out = append(out, ' ')
			}
		case numL:
			out = append(out, ' ')
		case numRN, num_rn:
			s := number[min(p, len(number)):]
			if n.key.id == num_rn {
				s = strings.ToLower(s)
			}
			if !d.is(nfFillMode) {
				s = fmt.Sprintf("%15s", s)
			}
			out = append(out, s...)
		case numTH, num_th:
			if d.is(nfRoman) || at(0) == '#' || sign == '-' || d.is(nfDecimal) {
				continue
			}
			o, err := ordinalSuffix(number, n.key.id == numTH)
			if err != nil {
				return "", err
			}
			out = append(out, o...)
		case numMI:
			switch {
			case sign == '-':
				out = append(out, '-')
			case !d.is(nfFillMode):
				out = append(out, ' ')
			}
		case numPL:
			switch {
			case sign == '+':
				out = append(out, '+')
			case !d.is(nfFillMode):
				out = append(out, ' ')
			}
		case numSG:
			out = append(out, sign)
		}
	}
	if i := strings.IndexByte(string(out), 0); i >= 0 {
		out = out[:i] // C's string ends at the first NUL written
	}
	return string(out), nil
}

// toNumber is numeric_to_number: NUM_processor's reading half, then
// numeric input with the precision and scale the template allows.
func toNumber(in, tmpl string) (any, error) {
	if tmpl == "" {
		return nil, nil
	}
	nodes, d, err := parseCached(tmpl, true)
	if err != nil {
		return nil, err
	}
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.is(nfEEEE) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, `"EEEE" not supported for input`)
	}
	if d.is(nfRoman) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, `"RN" not supported for input`)
	}
	number := []byte{' '} // the sign, then what is read
	readDec := false
	readPre, readPost := 0, 0
	numIn := false
	p := 0 // position in in
	over := func() bool { return p >= len(in) }
	amount := func(k int) bool { return p <= len(in)-k }
	eatNonData := func(k int) {
		for ; k > 0 && !over(); k-- {
			if strings.IndexByte("0123456789.,+-", in[p]) >= 0 {
				break
			}
			_, size := utf8.DecodeRuneInString(in[p:])
			p += size
		}
	}
	numPart := func(id int) {
		if over() {
			return
		}
		if in[p] == ' ' {
			p++
		}
		if over() {
			return
		}
		if number[0] == ' ' && (id == num0 || id == num9) && readPre+readPost == 0 {
			if d.is(nfLSign) && d.lsign == lsignPre {
				if amount(1) && in[p] == '-' {
					p++
					number[0] = '-'
				} else if amount(1) && in[p] == '+' {
					p++
					number[0] = '+'
				}
			} else if in[p] == '-' || d.is(nfBracket) && in[p] == '<' {
				number[0] = '-'
				p++
			} else if in[p] == '+' {
				number[0] = '+'
				p++
			}
		}
		if over() {
			return
		}
		isRead := false
		if c := in[p]; c >= '0' && c <= '9' {
			if readDec && readPost == d.post {
				return
			}
			number = append(number, c)
			if readDec {
				readPost++
			} else {
				readPre++
			}
			isRead = true
		} else if d.is(nfDecimal) && !readDec && amount(1) && in[p] == '.' {
			number = append(number, '.')
			readDec = true
			isRead = true
		}
		if over() {
			return
		}
		if number[0] == ' ' && readPre+readPost > 0 {
			if d.is(nfLSign) && isRead && p+1 < len(in) && !(in[p+1] >= '0' && in[p+1] <= '9') {
				tmp := p
				p++
				if amount(1) && in[p] == '-' {
					number[0] = '-'
				} else if amount(1) && in[p] == '+' {
					number[0] = '+'
				}
				if number[0] == ' ' {
					p = tmp
				}
			} else if !isRead && !d.is(nfLSign) && (d.is(nfPlus) || d.is(nfMinus)) {
				if in[p] == '-' || in[p] == '+' {
					number[0] = in[p]
				}
			}
		}
	}
	for _, n := range nodes {
		if over() {
			break
		}
		if n.kind != nodeAction {
			_, size := utf8.DecodeRuneInString(in[p:])
			p += size
			continue
		}
		switch n.key.id {
		case num9, num0, numDec, numD:
			numPart(n.key.id)
		case numComma, numG:
			if !numIn && d.is(nfFillMode) {
				continue
			}
			if in[p] != ',' {
				continue
			}
		case numL:
			eatNonData(1)
			continue
		case numTH, num_th:
			if !d.is(nfDecimal) { // as in to_char, TH is ignored after a decimal point
				eatNonData(2)
			}
			continue
		case numMI:
			if in[p] == '-' {
				number[0] = '-'
			} else {
				eatNonData(1)
				continue
			}
		case numPL:
			if in[p] == '+' {
				number[0] = '+'
			} else {
				eatNonData(1)
				continue
			}
		case numSG:
			switch in[p] {
			case '-', '+':
				number[0] = in[p]
			default:
				eatNonData(1)
				continue
			}
		default:
			continue
		}
		p++
	}
	if number[len(number)-1] == '.' {
		number = number[:len(number)-1]
	}
	scale := readPost
	precision := d.pre + d.multi + scale
	v, err := types.ParseText(types.Numeric, string(number), nil)
	if err != nil {
		return nil, err
	}
	x := v.(*apd.Decimal)
	if x.Form == apd.Finite {
		r := new(apd.Decimal)
		if _, err := NumericContext.Quantize(r, x, int32(-scale)); err != nil {
			return nil, err
		}
		if maxDigits := precision - scale; !r.IsZero() && int(r.NumDigits())+int(r.Exponent) > maxDigits {
			less := "1"
			if maxDigits > 0 {
				less = "10^" + strconv.Itoa(maxDigits)
			}
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
				WithDetail("A field with precision %d, scale %d must round to an absolute value less than %s.", precision, scale, less)
		}
		x = r
	}
	if d.is(nfMulti) {
		// x * power(10, -multi), which numeric computes to 16 places.
		factor := new(apd.Decimal)
		if _, err := NumericContext.Quantize(factor, apd.New(1, int32(-d.multi)), -16); err != nil {
			return nil, err
		}
		r := new(apd.Decimal)
		if _, err := NumericContext.Mul(r, x, factor); err != nil {
			return nil, err
		}
		x = r
	}
	return x, nil
}

// fromChar is TmFromChar: what to_timestamp read.
type fromChar struct {
	mode                               int
	hh, pm, mi, ss, ssss, d, dd, ddd   int
	mm, ms, year, bc, ww, w, cc, j, us int
	yysz                               int
	clock12                            bool
	tzsign, tzh, tzm, ff               int
}

func dtInvalid(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.InvalidDatetimeFormat, format, args...)
}

// setInt is from_char_set_int: a field may be set twice only to the same
// value.
func setInt(dst *int, v int, n *fmtNode) error {
	if *dst != 0 && *dst != v {
		return dtInvalid("conflicting values for \"%s\" field in formatting string", n.key.name).
			WithDetail("This value contradicts a previous setting for the same field type.")
	}
	*dst = v
	return nil
}

// isNextSeparator is is_next_separator: whether what follows node i of
// nodes reads no digits, so that a number may run on.
func isNextSeparator(nodes []fmtNode, i int) bool {
	if nodes[i].kind == nodeAction && nodes[i].suffix&(sufTH|sufth) != 0 {
		return true
	}
	if i+1 >= len(nodes) {
		return true
	}
	n := nodes[i+1]
	if n.kind == nodeAction {
		return !n.key.isDigit
	}
	return !(len(n.char) == 1 && n.char[0] >= '0' && n.char[0] <= '9')
}

// cStrtol is strtol in base 10: leading white space, a sign and digits.
// It returns the value, the characters used (0 if no digits) and whether
// the value overflowed.
func cStrtol(s string) (int64, int, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var v int64
	overflow := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if v > (math.MaxInt64-int64(s[i]-'0'))/10 {
			overflow = true
		} else {
			v = v*10 + int64(s[i]-'0')
		}
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, i, overflow
}

// dchFromChar is DCH_from_char: it reads in as the template says.
func dchFromChar(nodes []fmtNode, in string, out *fromChar) error {
	s := 0
	fx := false
	extraSkip := 0
	skipSpaces := func() {
		for s < len(in) && isCSpace(in[s]) {
			s++
			extraSkip++
		}
	}
	// parseInt is from_char_parse_int_len: a number of up to width
	// characters, or as many as there are in FM or before a separator.
	parseInt := func(dst *int, width int, i int) (int, error) {
		n := &nodes[i]
		init := s
		for s < len(in) && isCSpace(in[s]) {
			s++
		}
		rest := in[s:]
		copyStr := rest
		if len(copyStr) > width {
			copyStr = copyStr[:width]
		}
		var v int64
		var overflow bool
		if n.suffix&sufFM != 0 || isNextSeparator(nodes, i) {
			var used int
			v, used, overflow = cStrtol(in[init:])
			if used > 0 {
				s = init + used
			} else {
				s = init
			}
		} else {
			if len(rest) < width {
				return 0, dtInvalid("source string too short for \"%s\" formatting field", n.key.name).
					WithDetail("Field requires %d characters, but only %d remain.", width, len(rest)).
					WithHint(`If your source string is not fixed-width, try using the "FM" modifier.`)
			}
			var used int
			v, used, overflow = cStrtol(copyStr)
			if used > 0 && used < width {
				return 0, dtInvalid("invalid value \"%s\" for \"%s\"", copyStr, n.key.name).
					WithDetail("Field requires %d characters, but only %d could be parsed.", width, used).
					WithHint(`If your source string is not fixed-width, try using the "FM" modifier.`)
			}
			s += used
		}
		if s == init {
			return 0, dtInvalid("invalid value \"%s\" for \"%s\"", copyStr, n.key.name).WithDetail("Value must be an integer.")
		}
		if overflow || v < math.MinInt32 || v > math.MaxInt32 {
			return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "value for \"%s\" in source string is out of range", n.key.name).
				WithDetail("Value must be in the range %d to %d.", math.MinInt32, math.MaxInt32)
		}
		if dst != nil {
			if err := setInt(dst, int(v), n); err != nil {
				return 0, err
			}
		}
		return s - init, nil
	}
	// search is from_char_seq_search: the first of words that begins the
	// input, ignoring case.
	search := func(words []string, i int) (int, error) {
		rest := in[s:]
		for k, w := range words {
			if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
				s += len(w)
				return k, nil
			}
		}
		word := rest
		if j := strings.IndexFunc(rest, func(r rune) bool { return r < 128 && isCSpace(byte(r)) }); j >= 0 {
			word = rest[:j]
		}
		return 0, dtInvalid("invalid value \"%s\" for \"%s\"", word, nodes[i].key.name).
			WithDetail("The given value did not match any of the allowed values for this field.")
	}
	skipTH := func(n *fmtNode) {
		if n.suffix&(sufTH|sufth) != 0 {
			for k := 0; k < 2 && s < len(in); k++ {
				_, size := utf8.DecodeRuneInString(in[s:])
				s += size
			}
		}
	}
	for i := 0; i < len(nodes) && s < len(in); i++ {
		n := &nodes[i]
		if !fx && (n.kind != nodeAction || n.key.id != dchFX) && (n.kind == nodeAction || i == 0) {
			skipSpaces()
		}
		if n.kind == nodeSpace || n.kind == nodeSeparator {
			if !fx {
				extraSkip--
				if s < len(in) && (isCSpace(in[s]) || isSeparatorChar(in[s])) {
					s++
					extraSkip++
				}
			} else if s < len(in) {
				_, size := utf8.DecodeRuneInString(in[s:])
				s += size
			}
			continue
		}
		if n.kind != nodeAction {
			if !fx && extraSkip > 0 {
				extraSkip--
			} else if s < len(in) {
				_, size := utf8.DecodeRuneInString(in[s:])
				s += size
			}
			continue
		}
		if m := n.key.mode; m != modeNone {
			if out.mode == modeNone {
				out.mode = m
			} else if out.mode != m {
				return dtInvalid("invalid combination of date conventions").
					WithHint("Do not mix Gregorian and ISO week date conventions in a formatting template.")
			}
		}
		var err error
		var v int
		switch n.key.id {
		case dchFX:
			fx = true
		case dchA_M, dchP_M, dch_a_m, dch_p_m:
			if v, err = search([]string{"a.m.", "p.m.", "A.M.", "P.M."}, i); err == nil {
				err = setInt(&out.pm, v%2, n)
				out.clock12 = true
			}
		case dchAM, dchPM, dch_am, dch_pm:
			if v, err = search([]string{"am", "pm", "AM", "PM"}, i); err == nil {
				err = setInt(&out.pm, v%2, n)
				out.clock12 = true
			}
		case dchHH, dchHH12:
			if _, err = parseInt(&out.hh, 2, i); err == nil {
				out.clock12 = true
				skipTH(n)
			}
		case dchHH24:
			if _, err = parseInt(&out.hh, 2, i); err == nil {
				skipTH(n)
			}
		case dchMI:
			if _, err = parseInt(&out.mi, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchSS:
			if _, err = parseInt(&out.ss, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchMS:
			var l int
			if l, err = parseInt(&out.ms, 3, i); err == nil {
				switch l {
				case 1:
					out.ms *= 100
				case 2:
					out.ms *= 10
				}
				skipTH(n)
			}
		case dchFF1, dchFF2, dchFF3, dchFF4, dchFF5, dchFF6, dchUS:
			width := 6
			if n.key.id != dchUS {
				out.ff = n.key.id - dchFF1 + 1
				width = out.ff
			}
			var l int
			if l, err = parseInt(&out.us, width, i); err == nil {
				if l >= 1 && l <= 5 {
					out.us *= int(math.Pow10(6 - l))
				}
				skipTH(n)
			}
		case dchSSSS:
			if _, err = parseInt(&out.ssss, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchTZ, dch_tz, dchOF:
			err = pgerr.New(pgerr.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", n.key.name)
		case dchTZH:
			switch {
			case in[s] == '+' || in[s] == '-' || in[s] == ' ':
				out.tzsign = 1
				if in[s] == '-' {
					out.tzsign = -1
				}
				s++
			case extraSkip > 0 && s > 0 && in[s-1] == '-':
				out.tzsign = -1
			default:
				out.tzsign = 1
			}
			_, err = parseInt(&out.tzh, 2, i)
		case dchTZM:
			if out.tzsign == 0 {
				out.tzsign = 1
			}
			_, err = parseInt(&out.tzm, 2, i)
		case dchA_D, dchB_C, dch_a_d, dch_b_c:
			if v, err = search([]string{"a.d.", "b.c.", "A.D.", "B.C."}, i); err == nil {
				err = setInt(&out.bc, v%2, n)
			}
		case dchAD, dchBC, dch_ad, dch_bc:
			if v, err = search([]string{"ad", "bc", "AD", "BC"}, i); err == nil {
				err = setInt(&out.bc, v%2, n)
			}
		case dchMONTH, dchMonth, dch_month:
			if v, err = search(monthNames, i); err == nil {
				err = setInt(&out.mm, v+1, n)
			}
		case dchMON, dchMon, dch_mon:
			if v, err = search(monthAbbrevs, i); err == nil {
				err = setInt(&out.mm, v+1, n)
			}
		case dchMM:
			if _, err = parseInt(&out.mm, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchDAY, dchDay, dch_day:
			if v, err = search(dayNames, i); err == nil {
				if err = setInt(&out.d, v, n); err == nil {
					out.d++
				}
			}
		case dchDY, dchDy, dch_dy:
			if v, err = search(dayAbbrevs, i); err == nil {
				if err = setInt(&out.d, v, n); err == nil {
					out.d++
				}
			}
		case dchDDD:
			if _, err = parseInt(&out.ddd, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchIDDD:
			if _, err = parseInt(&out.ddd, 3, i); err == nil {
				skipTH(n)
			}
		case dchDD:
			if _, err = parseInt(&out.dd, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchD:
			if _, err = parseInt(&out.d, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchID:
			if _, err = parseInt(&out.d, 1, i); err == nil {
				if out.d++; out.d > 7 {
					out.d = 1
				}
				skipTH(n)
			}
		case dchWW, dchIW:
			if _, err = parseInt(&out.ww, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchQ:
			if _, err = parseInt(nil, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchCC:
			if _, err = parseInt(&out.cc, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchY_YYY:
			// sscanf("%d,%03d"): a number, a comma, and up to three more
			// characters of a number.
			millennia, used1, _ := cStrtol(in[s:])
			ok := used1 > 0 && s+used1 < len(in) && in[s+used1] == ','
			var years int64
			used2 := 0
			if ok {
				rest := in[s+used1+1:]
				lead := 0
				for lead < len(rest) && isCSpace(rest[lead]) {
					lead++
				}
				var used int
				years, used, _ = cStrtol(rest[lead:min(lead+3, len(rest))])
				ok = used > 0
				used2 = lead + used
			}
			if !ok {
				err = dtInvalid(`invalid input string for "Y,YYY"`)
				break
			}
			if err = setInt(&out.year, int(years+millennia*1000), n); err == nil {
				out.yysz = 4
				s += used1 + 1 + used2
				skipTH(n)
			}
		case dchYYYY, dchIYYY:
			if _, err = parseInt(&out.year, len(n.key.name), i); err == nil {
				out.yysz = 4
				skipTH(n)
			}
		case dchYYY, dchIYY, dchYY, dchIY, dchY, dchI:
			var l int
			if l, err = parseInt(&out.year, len(n.key.name), i); err == nil {
				if l < 4 {
					out.year = partialYear(out.year)
				}
				out.yysz = len(n.key.name)
				skipTH(n)
			}
		case dchRM, dch_rm:
			if v, err = search(romanMonthsUp, i); err == nil {
				err = setInt(&out.mm, 12-v, n)
			}
		case dchW:
			if _, err = parseInt(&out.w, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		case dchJ:
			if _, err = parseInt(&out.j, len(n.key.name), i); err == nil {
				skipTH(n)
			}
		}
		if err != nil {
			return err
		}
		if !fx {
			extraSkip = 0
			skipSpaces()
		}
	}
	return nil
}

// partialYear is adjust_partial_year_to_2020.
func partialYear(y int) int {
	switch {
	case y < 70:
		return y + 2000
	case y < 100:
		return y + 1900
	case y < 520:
		return y + 2000
	case y < 1000:
		return y + 1000
	}
	return y
}

// parsedTime is what do_to_timestamp makes of its input: a broken-down
// date and time, and an offset if TZH or TZM gave one.
type parsedTime struct {
	f      tmFields
	hasTZ  bool
	offset int // seconds east of UTC
	fprec  int // the digits FFn asked for
}

func dtFieldOverflow(in string) *pgerr.Error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", in)
}

// toTimestampFields is do_to_timestamp.
func toTimestampFields(in, tmpl string) (*parsedTime, error) {
	var fc fromChar
	if tmpl != "" {
		nodes, _, err := parseCached(tmpl, false)
		if err != nil {
			return nil, err
		}
		if err := dchFromChar(nodes, in, &fc); err != nil {
			return nil, err
		}
	}
	tm := tmFields{mon: 1, mday: 1}
	const (
		mYear = 1 << iota
		mMonth
		mDay
	)
	fmask := 0
	if fc.ssss != 0 {
		tm.hour, tm.min, tm.sec = fc.ssss/3600, fc.ssss%3600/60, fc.ssss%60
	}
	if fc.ss != 0 {
		tm.sec = fc.ss
	}
	if fc.mi != 0 {
		tm.min = fc.mi
	}
	if fc.hh != 0 {
		tm.hour = fc.hh
	}
	if fc.clock12 {
		if tm.hour < 1 || tm.hour > 12 {
			return nil, dtInvalid("hour \"%d\" is invalid for the 12-hour clock", tm.hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if fc.pm != 0 && tm.hour < 12 {
			tm.hour += 12
		} else if fc.pm == 0 && tm.hour == 12 {
			tm.hour = 0
		}
	}
	switch {
	case fc.year != 0:
		if fc.cc != 0 && fc.yysz <= 2 {
			if fc.bc != 0 {
				fc.cc = -fc.cc
			}
			tm.year = fc.year % 100
			switch {
			case tm.year != 0 && fc.cc >= 0:
				tm.year += (fc.cc - 1) * 100
			case tm.year != 0:
				tm.year = (fc.cc+1)*100 - tm.year + 1
			default:
				tm.year = fc.cc * 100
				if fc.cc < 0 {
					tm.year++
				}
			}
		} else {
			tm.year = fc.year
			if fc.bc != 0 {
				tm.year = -tm.year
			}
			if tm.year < 0 {
				tm.year++
			}
		}
		fmask |= mYear
	case fc.cc != 0:
		if fc.bc != 0 {
			fc.cc = -fc.cc
		}
		if fc.cc >= 0 {
			tm.year = (fc.cc-1)*100 + 1
		} else {
			tm.year = fc.cc*100 + 1
		}
		fmask |= mYear
	}
	if fc.j != 0 {
		tm.year, tm.mon, tm.mday = julianToDate(int64(fc.j))
		fmask |= mYear | mMonth | mDay
	}
	if fc.ww != 0 {
		if fc.mode == modeISOWeek {
			j := isoWeek1(tm.year) + int64(fc.ww-1)*7
			if fc.d != 0 {
				if fc.d > 1 {
					j += int64(fc.d - 2)
				} else {
					j += 6
				}
			}
			tm.year, tm.mon, tm.mday = julianToDate(j)
			fmask |= mYear | mMonth | mDay
		} else {
			fc.ddd = (fc.ww-1)*7 + 1
		}
	}
	if fc.w != 0 {
		fc.dd = (fc.w-1)*7 + 1
	}
	if fc.dd != 0 {
		tm.mday = fc.dd
		fmask |= mDay
	}
	if fc.mm != 0 {
		tm.mon = fc.mm
		fmask |= mMonth
	}
	if fc.ddd != 0 && (tm.mon <= 1 || tm.mday <= 1) {
		if tm.year == 0 && fc.bc == 0 {
			return nil, dtInvalid("cannot calculate day of year without year information")
		}
		if fc.mode == modeISOWeek {
			tm.year, tm.mon, tm.mday = julianToDate(isoWeek1(tm.year) - 1 + int64(fc.ddd))
			fmask |= mYear | mMonth | mDay
		} else {
			var ysum [13]int // days before each month's end
			for m := 1; m <= 12; m++ {
				ysum[m] = ysum[m-1] + daysInMonth(tm.year, m)
			}
			m := 1
			for ; m <= 12; m++ {
				if fc.ddd <= ysum[m] {
					break
				}
			}
			if tm.mon <= 1 {
				tm.mon = m
			}
			if tm.mday <= 1 {
				tm.mday = fc.ddd - ysum[m-1]
			}
			fmask |= mMonth | mDay
		}
	}
	usec := int64(fc.ms)*1000 + int64(fc.us)
	if fmask != 0 {
		if fmask&mMonth != 0 && (tm.mon < 1 || tm.mon > 12) || fmask&mDay != 0 && (tm.mday < 1 || tm.mday > 31) ||
			fmask&(mYear|mMonth|mDay) == mYear|mMonth|mDay && tm.mday > daysInMonth(tm.year, tm.mon) {
			return nil, dtFieldOverflow(in)
		}
	}
	if tm.hour < 0 || tm.hour >= 24 || tm.min < 0 || tm.min >= 60 || tm.sec < 0 || tm.sec >= 60 || usec < 0 || usec >= 1_000_000 {
		return nil, dtFieldOverflow(in)
	}
	tm.usec = usec
	p := &parsedTime{f: tm, fprec: fc.ff}
	if fc.tzsign != 0 {
		if fc.tzh < 0 || fc.tzh > 15 || fc.tzm < 0 || fc.tzm >= 60 {
			return nil, pgerr.New("22009", "time zone displacement out of range: \"%s\"", in)
		}
		p.hasTZ = true
		p.offset = (fc.tzh*60 + fc.tzm) * 60
		if fc.tzsign < 0 {
			p.offset = -p.offset
		}
	}
	return p, nil
}

// toTimestamp is to_timestamp(text, template), read in the session's
// time zone unless TZH gives an offset.
func toTimestamp(e Env, a []any) (any, error) {
	p, err := toTimestampFields(a[0].(string), a[1].(string))
	if err != nil {
		return nil, err
	}
	if !validJulian(p.f.year, p.f.mon, p.f.mday) || !p.f.inRange() {
		return nil, types.ErrTimestampRange()
	}
	us := p.f.micros()
	if p.hasTZ {
		us -= int64(p.offset) * 1_000_000
	} else {
		us = types.LocalToUTC(us, e.Location())
	}
	if p.fprec > 0 {
		us = roundMicros(us, p.fprec)
	}
	if !types.TimestampInRange(us) {
		return nil, types.ErrTimestampRange()
	}
	return types.FromMicros(us), nil
}

// roundMicros is AdjustTimestampForTypmod: us rounded to prec fractional
// digits, halves away from zero.
func roundMicros(us int64, prec int) int64 {
	if prec >= 6 {
		return us
	}
	scale := int64(math.Pow10(6 - prec))
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}

// unixToTimestamp is to_timestamp(double precision), seconds from the
// Unix epoch.
func unixToTimestamp(_ Env, a []any) (any, error) {
	secs := a[0].(float64)
	switch {
	case math.IsNaN(secs):
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp cannot be NaN")
	case math.IsInf(secs, 1):
		return types.TimeInfinity, nil
	case math.IsInf(secs, -1):
		return types.TimeNegInfinity, nil
	}
	const minSecs = -210866803200.0 // 4714-11-24 BC, in Unix seconds
	const endSecs = 9224318016000.0 // 294277-01-01
	outOfRange := pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", strconv.FormatFloat(secs, 'g', 6, 64))
	if secs < minSecs || secs >= endSecs {
		return nil, outOfRange
	}
	us := int64(math.RoundToEven((secs - 946684800) * 1e6))
	if !types.TimestampInRange(us) {
		return nil, outOfRange
	}
	return types.FromMicros(us), nil
}

// toDate is to_date(text, template).
func toDate(_ Env, a []any) (any, error) {
	in := a[0].(string)
	p, err := toTimestampFields(in, a[1].(string))
	if err != nil {
		return nil, err
	}
	if !validJulian(p.f.year, p.f.mon, p.f.mday) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", in)
	}
	days := dayNumber(p.f.year, p.f.mon, p.f.mday)
	if !types.DateInRange(days) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", in)
	}
	return types.FromDays(int32(days)), nil
}
