package plan

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
