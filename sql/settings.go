package sql

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// setting is one run-time parameter (GUC). Reported ones are sent to the
// client as ParameterStatus at startup and whenever they change, exactly the
// set PostgreSQL 15 marks GUC_REPORT.
type setting struct {
	name     string // canonical spelling, as SHOW ALL prints it
	def      string
	reported bool
	readOnly bool
	check    func(string) (string, error) // normalises or rejects a value
}

const serverVersion = "15.0"

var settingList = []setting{
	{name: "application_name", reported: true},
	{name: "client_encoding", def: "UTF8", reported: true, check: checkEncoding},
	{name: "DateStyle", def: "ISO, MDY", reported: true, check: checkDateStyle},
	{name: "default_transaction_read_only", def: "off", reported: true, check: checkBool},
	{name: "in_hot_standby", def: "off", reported: true, readOnly: true},
	{name: "integer_datetimes", def: "on", reported: true, readOnly: true},
	{name: "IntervalStyle", def: "postgres", reported: true, check: checkIntervalStyle},
	{name: "is_superuser", def: "on", reported: true, readOnly: true},
	{name: "server_encoding", def: "UTF8", reported: true, readOnly: true},
	{name: "server_version", def: serverVersion, reported: true, readOnly: true},
	{name: "session_authorization", reported: true, readOnly: true},
	{name: "standard_conforming_strings", def: "on", reported: true, check: checkOn("standard_conforming_strings")},
	{name: "TimeZone", def: "UTC", reported: true, check: checkTimeZone},

	{name: "server_version_num", def: "150000", readOnly: true},
	{name: "max_identifier_length", def: "63", readOnly: true},
	{name: "max_index_keys", def: "32", readOnly: true},
	{name: "block_size", def: "8192", readOnly: true},
	{name: "search_path", def: `"$user", public`},
	{name: "extra_float_digits", def: "1", check: checkInt("extra_float_digits", -15, 3)},
	{name: "statement_timeout", def: "0", check: checkMillis("statement_timeout")},
	{name: "lock_timeout", def: "0", check: checkMillis("lock_timeout")},
	{name: "idle_in_transaction_session_timeout", def: "0", check: checkMillis("idle_in_transaction_session_timeout")},
	{name: "default_transaction_isolation", def: "read committed", check: checkIsolation},
	{name: "transaction_isolation", def: "read committed", check: checkIsolation},
	{name: "transaction_read_only", def: "off", check: checkBool},
	{name: "synchronous_commit", def: "on"},
	{name: "client_min_messages", def: "notice"},
	{name: "bytea_output", def: "hex", check: checkOn2("bytea_output", "hex")},
	{name: "lc_messages", def: "C"},
	{name: "lc_monetary", def: "C"},
	{name: "lc_numeric", def: "C"},
	{name: "lc_time", def: "C"},
	{name: "row_security", def: "on"},
	{name: "jit", def: "off"},
	{name: "work_mem", def: "64MB", check: checkKilobytes("work_mem", 64)},
	{name: "maintenance_work_mem", def: "64MB", check: checkKilobytes("maintenance_work_mem", 1024)},
	{name: "max_parallel_workers_per_gather", def: "0"},
	{name: "enable_seqscan", def: "on"},
	{name: "geqo", def: "on"},
	// pg_dump's settings; see pgdump.go.
	{name: "synchronize_seqscans", def: "on", check: checkNamedBool("synchronize_seqscans")},
	{name: "check_function_bodies", def: "on", check: checkNamedBool("check_function_bodies")},
	{name: "xmloption", def: "content", check: checkEnum("xmloption", "content", "document")},
	{name: "default_tablespace", check: checkTablespace},
	{name: "default_table_access_method", def: "heap", check: checkTableAM},
	// pg_trgm's thresholds, defined whether or not the extension is
	// installed, as in a PostgreSQL backend that has loaded its library.
	{name: "pg_trgm.similarity_threshold", def: "0.3", check: trgmThreshold("pg_trgm.similarity_threshold")},
	{name: "pg_trgm.strict_word_similarity_threshold", def: "0.5", check: trgmThreshold("pg_trgm.strict_word_similarity_threshold")},
	{name: "pg_trgm.word_similarity_threshold", def: "0.6", check: trgmThreshold("pg_trgm.word_similarity_threshold")},
}

func trgmThreshold(name string) func(string) (string, error) {
	return func(v string) (string, error) { return builtins.CheckTrgmThreshold(name, v) }
}

var settingsByName = func() map[string]*setting {
	m := make(map[string]*setting, len(settingList))
	for i := range settingList {
		m[strings.ToLower(settingList[i].name)] = &settingList[i]
	}
	return m
}()

func lookupSetting(name string) (*setting, error) {
	st, ok := settingsByName[strings.ToLower(name)]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", name)
	}
	return st, nil
}

func checkBool(v string) (string, error) {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1", "t":
		return "on", nil
	case "off", "false", "no", "0", "f":
		return "off", nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "parameter requires a Boolean value")
}

func checkInt(name string, lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
		}
		if n < lo || n > hi {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter \"%s\" (%d .. %d)", n, name, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// millisUnits are the units of a time setting whose base unit is the
// millisecond, largest first, as PostgreSQL shows them.
var millisUnits = []timeUnit{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}}

type timeUnit struct {
	name string
	ms   int64
}

// checkMillis reads a time setting in milliseconds: a number, or a number
// and a unit (us, ms, s, min, h, d). It shows the value in the largest
// unit that holds it exactly, as PostgreSQL does: 60000 is 1min.
func checkMillis(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		text := strings.TrimSpace(v)
		num := strings.TrimRightFunc(text, func(r rune) bool { return r >= 'a' && r <= 'z' || r == ' ' })
		unit := strings.TrimSpace(text[len(num):])
		f, err := strconv.ParseFloat(num, 64)
		scale := 1.0
		switch unit {
		case "", "ms":
		case "us":
			scale = 0.001
		default:
			i := slices.IndexFunc(millisUnits, func(u timeUnit) bool { return u.name == unit })
			if i < 0 {
				err = strconv.ErrSyntax
			} else {
				scale = float64(millisUnits[i].ms)
			}
		}
		if err != nil {
			e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
			if unit != "" {
				e = e.WithHint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
			}
			return "", e
		}
		ms := math.Round(f * scale)
		if ms < 0 || ms > math.MaxInt32 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%s ms is outside the valid range for parameter \"%s\" (0 .. 2147483647)",
				strconv.FormatFloat(ms, 'f', -1, 64), name)
		}
		n := int64(ms)
		if n == 0 {
			return "0", nil
		}
		for _, u := range millisUnits {
			if n%u.ms == 0 {
				return strconv.FormatInt(n/u.ms, 10) + u.name, nil
			}
		}
		return strconv.FormatInt(n, 10) + "ms", nil
	}
}

// millis reads back a value checkMillis showed.
func millis(v string) time.Duration {
	if v == "0" {
		return 0 // the default of every timeout, read at every statement
	}
	for _, u := range millisUnits {
		if n, ok := strings.CutSuffix(v, u.name); ok {
			if k, err := strconv.ParseInt(n, 10, 64); err == nil {
				return time.Duration(k*u.ms) * time.Millisecond
			}
		}
	}
	return 0
}

// kilobyteUnits are the units of a memory setting whose base unit is the
// kilobyte, largest first, as PostgreSQL shows them.
var kilobyteUnits = []memUnit{{"TB", 1 << 30}, {"GB", 1 << 20}, {"MB", 1 << 10}, {"kB", 1}}

type memUnit struct {
	name string
	kb   float64
}

// checkKilobytes reads a memory setting in kilobytes, as PostgreSQL's
// parse_int does: a number (an integer in C's notations, or a decimal)
// and an optional unit, B, kB, MB, GB or TB, spelled exactly so; a plain
// number is kilobytes. The value is rounded to a whole kilobyte, half to
// even, and shown in the largest unit that holds it exactly: 1024 is 1MB.
func checkKilobytes(name string, lo int64) func(string) (string, error) {
	return func(v string) (string, error) {
		invalid := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
		text := strings.TrimLeft(v, " \t\n\r\f\v")
		f, rest, ok := leadingNumber(text)
		if !ok {
			return "", invalid
		}
		unit := strings.TrimSpace(rest)
		scale := 1.0
		switch unit {
		case "":
		case "B":
			scale = 1.0 / 1024
		default:
			i := slices.IndexFunc(kilobyteUnits, func(u memUnit) bool { return u.name == unit })
			if i < 0 {
				return "", invalid.WithHint(`Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`)
			}
			scale = kilobyteUnits[i].kb
		}
		kb := math.RoundToEven(f * scale)
		if math.IsNaN(kb) || kb > math.MaxInt32 || kb < math.MinInt32 {
			return "", invalid.WithHint("Value exceeds integer range.")
		}
		n := int64(kb)
		if n < lo || n > math.MaxInt32 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d kB is outside the valid range for parameter \"%s\" (%d .. %d)", n, name, lo, math.MaxInt32)
		}
		for _, u := range kilobyteUnits {
			if k := int64(u.kb); n%k == 0 {
				return strconv.FormatInt(n/k, 10) + u.name, nil
			}
		}
		return strconv.FormatInt(n, 10) + "kB", nil
	}
}

// leadingNumber reads the number at the start of s as parse_int does:
// first as an integer the way strtol with base 0 reads one (0x for hex, a
// leading 0 for octal), else as a decimal the way strtod does. It returns
// the number and what follows it.
func leadingNumber(s string) (float64, string, bool) {
	sign, body := "", s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		sign, body = body[:1], body[1:]
	}
	base, digits := 10, body
	switch {
	case len(body) > 2 && (body[:2] == "0x" || body[:2] == "0X") && isDigitIn(body[2], 16):
		base, digits = 16, body[2:]
	case len(body) > 1 && body[0] == '0':
		base = 8
	}
	end := 0
	for end < len(digits) && isDigitIn(digits[end], base) {
		end++
	}
	intEnd := len(s) - len(digits) + end
	if end > 0 && (intEnd == len(s) || !strings.ContainsRune(".eE", rune(s[intEnd])) || base == 16) {
		if n, err := strconv.ParseInt(sign+digits[:end], base, 64); err == nil {
			return float64(n), s[intEnd:], true
		}
	}
	// A decimal (or an integer beyond int64): digits, a fraction, an
	// exponent.
	i := len(sign)
	mant := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i == mant || s[mant:i] == "." {
		return 0, "", false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, "", false
	}
	return f, s[i:], true
}

func isDigitIn(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') < base
	case base == 16:
		return c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	return false
}

// kilobytes reads back a value checkKilobytes showed, in bytes.
func kilobytes(v string) int64 {
	for _, u := range kilobyteUnits {
		if n, ok := strings.CutSuffix(v, u.name); ok {
			if k, err := strconv.ParseInt(n, 10, 64); err == nil {
				return k * int64(u.kb) * 1024
			}
		}
	}
	return 0
}

func checkOn(name string) func(string) (string, error) { return checkOn2(name, "on") }

// checkOn2 accepts only the one value epochdb implements.
func checkOn2(name, only string) func(string) (string, error) {
	return func(v string) (string, error) {
		if b, err := checkBool(v); err == nil && only == "on" {
			v = b
		}
		if strings.EqualFold(v, only) {
			return only, nil
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "%s = %s is not supported; only %s", name, v, only)
	}
}

func checkEncoding(v string) (string, error) {
	switch strings.ToUpper(strings.ReplaceAll(v, "-", "")) {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	case "SQL_ASCII":
		return "SQL_ASCII", nil
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "client encoding %q is not supported; only UTF8", v)
}

func checkDateStyle(v string) (string, error) {
	parts := strings.Split(strings.ToUpper(strings.ReplaceAll(v, " ", "")), ",")
	order := "MDY"
	for _, p := range parts {
		switch p {
		case "ISO", "":
		case "MDY", "DMY", "YMD", "US", "NONEURO", "NONEUROPEAN":
			if p == "DMY" || p == "YMD" {
				order = p
			}
		default:
			return "", pgerr.New(pgerr.FeatureNotSupported, "DateStyle %q is not supported; only ISO", v)
		}
	}
	return "ISO, " + order, nil
}

func checkIntervalStyle(v string) (string, error) {
	if strings.EqualFold(v, "postgres") {
		return "postgres", nil
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "IntervalStyle %q is not supported; only postgres", v)
}

func checkTimeZone(v string) (string, error) {
	_, name, err := resolveZone(v)
	if err != nil {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", v)
		if d, ok := err.(zoneDetail); ok {
			e.Detail = string(d)
		}
		return "", e
	}
	return name, nil
}

// zoneDetail is why a TimeZone value is refused, for the error's DETAIL.
type zoneDetail string

func (d zoneDetail) Error() string { return string(d) }

// intervalZone reads the TimeZone INTERVAL '-08:00:00', which SET TIME
// ZONE INTERVAL sets: an offset of the interval's hours, minutes and whole
// seconds east of UTC, named as a numeric zone is.
func intervalZone(v string) (*time.Location, string, error) {
	lit := strings.TrimSpace(v[len("interval"):])
	if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
		return nil, "", zoneDetail("")
	}
	text := strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	x, err := types.ParseText(types.IntervalType, text, time.UTC)
	if err != nil {
		return nil, "", err
	}
	iv := x.(types.Interval)
	switch {
	case iv.Months != 0:
		return nil, "", zoneDetail("Cannot specify months in time zone interval.")
	case iv.Days != 0:
		return nil, "", zoneDetail("Cannot specify days in time zone interval.")
	}
	secs := iv.Micros / 1e6
	if math.Abs(float64(secs)) >= types.MaxZoneHours*3600 {
		return nil, "", zoneDetail("")
	}
	loc, name := isoOffsetZone(float64(secs) / 3600)
	return loc, name, nil
}

func checkIsolation(v string) (string, error) {
	switch strings.ToLower(v) {
	case "read committed", "read uncommitted":
		return "read committed", nil
	case "repeatable read":
		return "repeatable read", nil
	case "serializable":
		return "serializable", nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"default_transaction_isolation\": %q", v)
}

// loadLocation is the zone a TimeZone setting names.
func loadLocation(v string) (*time.Location, error) {
	loc, _, err := resolveZone(v)
	return loc, err
}

// resolveZone reads a TimeZone as PostgreSQL's check_timezone does, and
// names it as SHOW shows it. A number is hours east of UTC (5, -3.5,
// +03); otherwise it is an IANA name in any case, UTC/GMT, "localtime",
// or a POSIX zone without daylight-saving rules, whose offset is hours
// west of UTC (UTC+3, <+07>-07, -05:30).
func resolveZone(v string) (*time.Location, string, error) {
	if hours, ok := zoneHours(v); ok {
		loc, name := isoOffsetZone(hours)
		return loc, name, nil
	}
	if len(v) >= len("interval") && strings.EqualFold(v[:len("interval")], "interval") {
		return intervalZone(v)
	}
	switch strings.ToLower(v) {
	case "utc", "gmt", "z", "zulu", "etc/utc":
		return time.UTC, v, nil
	case "localtime", "local":
		return time.Local, v, nil
	}
	if loc, err := time.LoadLocation(v); err == nil {
		return loc, v, nil
	}
	if loc := types.FindZone(v); loc != nil {
		return loc, loc.String(), nil // america/new_york is shown America/New_York
	}
	// PostgreSQL upper-cases a POSIX zone, name and abbreviation.
	if loc, ok := types.PosixZone(strings.ToUpper(v)); ok {
		return loc, strings.ToUpper(v), nil
	}
	return nil, "", pgerr.New(pgerr.InvalidParameterValue, "time zone %q not recognized", v)
}

// zoneHours reads a TimeZone that is a number of hours, as strtod would.
func zoneHours(v string) (float64, bool) {
	h, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(h) || math.Abs(h) >= types.MaxZoneHours || strings.ContainsAny(v, "_xXpP") {
		return 0, false
	}
	return h, true
}

// isoOffsetZone is the fixed zone hours east of UTC, and its name as
// PostgreSQL shows it: SET TIME ZONE 5 is <+05>-05, abbreviated +05.
func isoOffsetZone(hours float64) (*time.Location, string) {
	secs := int(math.Round(hours * 3600))
	abbr := formatZoneOffset(secs)
	// The POSIX part counts west: the sign flips, and zero is -00.
	posix := "-" + abbr[1:]
	if secs < 0 {
		posix = "+" + abbr[1:]
	}
	return time.FixedZone(abbr, secs), "<" + abbr + ">" + posix
}

// formatZoneOffset is +hh[:mm[:ss]], hours east of UTC.
func formatZoneOffset(secs int) string {
	sign := '+'
	if secs < 0 {
		sign, secs = '-', -secs
	}
	text := fmt.Sprintf("%c%02d", sign, secs/3600)
	if m, s := secs/60%60, secs%60; m != 0 || s != 0 {
		text += fmt.Sprintf(":%02d", m)
		if s != 0 {
			text += fmt.Sprintf(":%02d", s)
		}
	}
	return text
}

// settingNames lists every parameter, for SHOW ALL.
func settingNames() []string {
	names := make([]string, 0, len(settingList))
	for _, st := range settingList {
		names = append(names, st.name)
	}
	sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
	return names
}

// settingViews are the run-time parameters and their values, in the order
// of their names.
func (s *Session) settingViews() []pgcatalog.SettingView {
	var out []pgcatalog.SettingView
	for _, name := range settingNames() {
		st, _ := lookupSetting(name)
		v, _ := s.getSetting(name)
		out = append(out, pgcatalog.SettingView{Name: name, Value: v, Default: st.def, ReadOnly: st.readOnly})
	}
	return out
}
