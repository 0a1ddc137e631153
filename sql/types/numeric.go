package types

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// A numeric datum is an *apd.Decimal whose exponent is never positive: its
// display scale (PostgreSQL's dscale) is -Exponent, so 1.50 and 1.5 stay
// distinct values that compare equal, as in PostgreSQL. Zero is never
// negative. These invariants are established where numerics are made
// (parseNumeric, roundNumeric, normalizeNumeric) and relied on everywhere else.

// PostgreSQL's storage limits for numeric: a base-10000 weight in an int16
// and a 14-bit display scale.
const (
	numericMaxIntDigits = 4 * 32768
	numericMaxScale     = 0x3fff
)

var (
	numericNaN    = &apd.Decimal{Form: apd.NaN}
	numericPosInf = &apd.Decimal{Form: apd.Infinite}
	numericNegInf = &apd.Decimal{Form: apd.Infinite, Negative: true}
)

// parseNumeric implements numeric_in without a typmod.
func parseNumeric(s string) (*apd.Decimal, error) {
	str := strings.TrimSpace(s)
	switch strings.ToLower(str) {
	case "nan":
		return numericNaN, nil
	case "infinity", "+infinity", "inf", "+inf":
		return numericPosInf, nil
	case "-infinity", "-inf":
		return numericNegInf, nil
	}
	bad := func() error {
		return pgerr.New(pgerr.InvalidTextRepresentation, `invalid input syntax for type numeric: "%s"`, s)
	}
	neg := false
	if str != "" && (str[0] == '+' || str[0] == '-') {
		neg = str[0] == '-'
		str = str[1:]
	}
	var digits []byte
	scale := int64(0)
	seenDigit, seenPoint := false, false
	i := 0
	for ; i < len(str); i++ {
		c := str[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			seenDigit = true
			if seenPoint {
				scale++
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		default:
			goto exponent
		}
	}
exponent:
	if !seenDigit {
		return nil, bad()
	}
	if i < len(str) {
		if str[i] != 'e' && str[i] != 'E' {
			return nil, bad()
		}
		exp, ok := parseExponent(str[i+1:])
		if !ok {
			return nil, bad()
		}
		if exp >= 1<<30 || exp <= -(1<<30) {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		scale -= exp
	}
	// Reject huge exponents before materializing 10^exp.
	if sig := len(strings.TrimLeft(string(digits), "0")); sig > 0 && int64(sig)-scale > numericMaxIntDigits {
		return nil, errNumericOverflow()
	}
	var coeff apd.BigInt
	if _, ok := coeff.SetString(string(digits), 10); !ok {
		return nil, bad()
	}
	if scale > numericMaxScale {
		return nil, errNumericOverflow()
	}
	return normalizeNumeric(&apd.Decimal{Coeff: coeff, Negative: neg, Exponent: int32(-scale)})
}

// parseExponent parses the digits after 'e' with an optional sign.
func parseExponent(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || !allDigits(s) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
		if n > 1<<40 {
			n = 1 << 40 // far beyond any valid exponent; the caller rejects it
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// normalizeNumeric returns d in the form numeric datums keep: no positive
// exponent and no negative zero, within PostgreSQL's limits. It returns d
// itself when it already is, and otherwise a new value: datums may be
// shared, so d is never modified.
func normalizeNumeric(d *apd.Decimal) (*apd.Decimal, error) {
	if d.Form != apd.Finite {
		return d, nil
	}
	if d.Coeff.Sign() == 0 {
		if d.Negative || d.Exponent > 0 {
			return &apd.Decimal{Exponent: min(d.Exponent, 0)}, nil
		}
		return d, nil
	}
	if -int64(d.Exponent) > numericMaxScale || d.NumDigits()+int64(d.Exponent) > numericMaxIntDigits {
		return nil, errNumericOverflow()
	}
	if d.Exponent > 0 {
		r := &apd.Decimal{Negative: d.Negative}
		r.Coeff.Mul(&d.Coeff, pow10(int64(d.Exponent)))
		return r, nil
	}
	return d, nil
}

func errNumericOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

var bigTen = apd.NewBigInt(10)

// pow10 returns 10^n as a new BigInt.
func pow10(n int64) *apd.BigInt {
	var r apd.BigInt
	return r.Exp(bigTen, apd.NewBigInt(n), nil)
}

// roundNumeric rounds d to scale digits after the point, halves away from
// zero, as PostgreSQL's round_var does. A negative scale rounds to tens,
// hundreds, ...; the result then has display scale 0, and a positive scale
// is padded with zeros so the result shows exactly that many digits.
func roundNumeric(d *apd.Decimal, scale int) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	target := int32(-scale)
	r := &apd.Decimal{Negative: d.Negative, Exponent: d.Exponent}
	r.Coeff.Set(&d.Coeff)
	if r.Exponent < target {
		var q, rem apd.BigInt
		div := pow10(int64(target - r.Exponent))
		q.QuoRem(&r.Coeff, div, &rem)
		// Round half away from zero: compare twice the remainder with the divisor.
		rem.Mul(&rem, apd.NewBigInt(2))
		if rem.Cmp(div) >= 0 {
			q.Add(&q, apd.NewBigInt(1))
		}
		r.Coeff.Set(&q)
		r.Exponent = target
	}
	if r.Exponent > 0 {
		r.Coeff.Mul(&r.Coeff, pow10(int64(r.Exponent)))
		r.Exponent = 0
	} else if r.Exponent > target {
		r.Coeff.Mul(&r.Coeff, pow10(int64(r.Exponent-target)))
		r.Exponent = target
	}
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	}
	return r
}

// applyNumericMod is PostgreSQL's apply_typmod: round to the scale, then
// fail if the integer part has more than precision-scale digits.
func applyNumericMod(d *apd.Decimal, mod int32) (*apd.Decimal, error) {
	if mod < 4 || d.Form == apd.NaN {
		return d, nil
	}
	prec, scale := numericMod(mod)
	if d.Form == apd.Infinite {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", prec, scale)
	}
	r := roundNumeric(d, scale)
	maxDigits := prec - scale
	// The number of digits before the point of the leading nonzero digit:
	// |r| < 10^intDigits.
	if !r.IsZero() && r.NumDigits()+int64(r.Exponent) > int64(maxDigits) {
		e := pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow")
		if maxDigits == 0 {
			return nil, e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 1.", prec, scale)
		}
		return nil, e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 10^%d.", prec, scale, maxDigits)
	}
	return r, nil
}

// appendNumeric appends numeric_out's text.
func appendNumeric(buf []byte, d *apd.Decimal) []byte {
	if d.Form == apd.NaN || d.Form == apd.NaNSignaling {
		return append(buf, "NaN"...)
	}
	// A value made by arithmetic may be -0 or have a positive exponent.
	if n, err := normalizeNumeric(d); err == nil {
		d = n
	}
	return d.Append(buf, 'f')
}
