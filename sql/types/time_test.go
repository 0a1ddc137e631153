package types

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// The time type's text formats, casts and order are in testdata/*_time;
// these are the parts no single PostgreSQL query shows.

// TestTimeRecvRange: time_recv takes 0 to 24:00:00 and nothing else.
func TestTimeRecvRange(t *testing.T) {
	for _, us := range []int64{-1, TimeEnd + 1, -1 << 63} {
		b := binary.BigEndian.AppendUint64(nil, uint64(us))
		if _, err := DecodeBinary(TimeType, b); codeOf(err) != pgerr.NumericValueOutOfRange {
			t.Errorf("time_recv(%d): %v, want 22003", us, err)
		}
	}
	b := binary.BigEndian.AppendUint64(nil, uint64(TimeEnd))
	if v, err := DecodeBinary(TimeType, b); err != nil || v != int64(TimeEnd) {
		t.Errorf("time_recv(24:00:00) = %v, %v", v, err)
	}
	// The modifier applies to a binary parameter too.
	b = binary.BigEndian.AppendUint64(nil, 1_500_000)
	if v, err := DecodeBinary(T{OidTime, 0}, b); err != nil || v != int64(2_000_000) {
		t.Errorf("time(0) from 00:00:01.5 = %v, %v, want 2000000", v, err)
	}
}

// TestMakeTime: make_time's range and its message, as PostgreSQL 15 gives
// them.
func TestMakeTime(t *testing.T) {
	cases := []struct {
		h, m int64
		sec  float64
		want string
	}{
		{12, 34, 56.789, "12:34:56.789"},
		{1, 0, 59.9999999, "01:01:00"},
		{1, 0, 0.00001, "01:00:00.00001"},
		{24, 0, 0.0000001, "24:00:00"},
		{23, 59, 60, "24:00:00"},
		{25, 0, 5, "time field value out of range: 25:00:05"},
		{1, 0, 61, "time field value out of range: 1:00:61"},
		{1, 0, -1, "time field value out of range: 1:00:-1"},
		{1, 60, 1e7, "time field value out of range: 1:60:1e+07"},
		{24, 0, 0.5, "time field value out of range: 24:00:0.5"},
	}
	for _, c := range cases {
		us, err := MakeTime(c.h, c.m, c.sec)
		got := ""
		if err != nil {
			if codeOf(err) != pgerr.DatetimeFieldOverflow {
				t.Errorf("make_time(%d, %d, %v): code %s", c.h, c.m, c.sec, codeOf(err))
			}
			got = pgerr.Convert(err).Message
		} else {
			got = string(AppendText(nil, TimeType, us, nil))
		}
		if got != c.want {
			t.Errorf("make_time(%d, %d, %v) = %s, want %s", c.h, c.m, c.sec, got, c.want)
		}
	}
}

// TestAddToTime: time ± interval wraps around midnight and ignores the
// interval's months and days.
func TestAddToTime(t *testing.T) {
	const hour = 3_600_000_000
	cases := []struct {
		us   int64
		iv   Interval
		want int64
	}{
		{23 * hour, Interval{Micros: 2 * hour}, hour},
		{hour, Interval{Micros: -2 * hour}, 23 * hour},
		{hour, Interval{Months: 1, Days: 2, Micros: 3 * hour}, 4 * hour},
		{0, Interval{Micros: -50 * hour}, 22 * hour},
		{TimeEnd, Interval{}, 0},
	}
	for _, c := range cases {
		if got := AddToTime(c.us, c.iv); got != c.want {
			t.Errorf("AddToTime(%d, %+v) = %d, want %d", c.us, c.iv, got, c.want)
		}
	}
}

// TestTimeNow: 'now' is the current time of day in the session's zone.
func TestTimeNow(t *testing.T) {
	loc := mustZone(t, "Asia/Kolkata")
	before := TimeOfDay(WallClock(time.Now(), loc))
	v, err := ParseText(TimeType, "now", loc)
	if err != nil {
		t.Fatal(err)
	}
	after := TimeOfDay(WallClock(time.Now(), loc))
	if us := v.(int64); before <= after && (us < before || us > after) {
		t.Errorf("'now'::time = %d, not between %d and %d", us, before, after)
	}
}

// TestTimeZoneNeedsDate: a zone with daylight saving needs a date to know
// its offset, so time input refuses it alone; a fixed zone does not.
func TestTimeZoneNeedsDate(t *testing.T) {
	if fixedZone(mustZone(t, "America/New_York")) || !fixedZone(mustZone(t, "Etc/GMT+5")) || !fixedZone(time.UTC) {
		t.Error("fixedZone misjudges America/New_York, Etc/GMT+5 or UTC")
	}
}

// TestTimetzUnsupported: time with time zone is still refused, by all its
// names, with 0A000.
func TestTimetzUnsupported(t *testing.T) {
	for _, name := range []string{"timetz", "time with time zone", "time(3) with time zone", "timetz[]"} {
		if _, err := ParseTypeName(name); codeOf(err) != pgerr.FeatureNotSupported {
			t.Errorf("%s: %v, want 0A000", name, err)
		}
	}
}
