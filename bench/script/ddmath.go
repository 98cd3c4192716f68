package script

import "math"

// This file computes exp, log, pow and sin with double-double arithmetic
// (about 106 bits) and rounds the result once, so the results are correctly
// rounded except in astronomically rare cases. pgbench calls glibc's libm,
// whose exp, log, pow and sin are correctly rounded or within 0.52 ULP;
// Go's math package is only accurate to one or more ULPs (math.Pow of a
// large exponent can be off by dozens of ULPs), which changes pgbench's
// random_zipfian values with a parameter near 1, for instance. Using these
// functions where pgbench calls libm makes the results equal to pgbench's.

// dd is a double-double number hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

func quickTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

// twoProd returns the product and its exact rounding error.
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return p, e
}

func ddAdd(a, b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	s, e = quickTwoSum(s, e)
	e += f
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

func ddMul(a, b dd) dd {
	p, e := twoProd(a.hi, b.hi)
	e += float64(a.hi*b.lo) + float64(a.lo*b.hi)
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func ddMulF(a dd, b float64) dd {
	p, e := twoProd(a.hi, b)
	e += float64(a.lo * b)
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

// ddDivF divides by a double.
func ddDivF(a dd, b float64) dd {
	q1 := a.hi / b
	p, e := twoProd(q1, b)
	s, f := twoSum(a.hi, -p)
	f -= e
	f += a.lo
	q2 := (s + f) / b
	q1, q2 = quickTwoSum(q1, q2)
	return dd{q1, q2}
}

var (
	ddLn2 = dd{6.93147180559945286227e-01, 2.31904681384629955842e-17}
	// pi/2 in three parts, for the argument reduction of sin.
	pio2a = 1.5707963267948966
	pio2b = 6.123233995736766e-17
	pio2c = -1.4973849048591698e-33
)

// expmDD returns exp(a) as a double-double with the power of two apart:
// exp(a) = m * 2^k. It requires |a.hi| < 1000.
func expmDD(a dd) (dd, int) {
	k := math.Round(a.hi / ddLn2.hi)
	r := ddAdd(a, ddNeg(ddMulF(ddLn2, k)))
	// exp(r) = (exp(r/1024))^1024, with exp(r/1024) - 1 from its series.
	const squarings = 10
	r = dd{math.Ldexp(r.hi, -squarings), math.Ldexp(r.lo, -squarings)}
	s := r
	term := r
	for i := 2; i <= 14; i++ {
		term = ddDivF(ddMul(term, r), float64(i))
		s = ddAdd(s, term)
		if math.Abs(term.hi) < 1e-36 {
			break
		}
	}
	// (1+s)^2 = 1 + (2s + s^2): square while keeping the small part.
	for i := 0; i < squarings; i++ {
		s = ddAdd(ddMulF(s, 2), ddMul(s, s))
	}
	return ddAdd(dd{1, 0}, s), int(k)
}

// scaleRound returns m * 2^k rounded to a double; m is normalized, so m.hi
// is m rounded to nearest, and the scaling is exact unless the result is
// subnormal.
func scaleRound(m dd, k int) float64 {
	if k >= -1021 {
		return math.Ldexp(m.hi, k)
	}
	// The result may be subnormal: round m * 2^(k+1074) to an integer
	// once, with the low part deciding halfway cases.
	t := math.Ldexp(m.hi, k+1074)
	tl := math.Ldexp(m.lo, k+1074)
	n := math.Floor(t)
	f := (t - n) + tl
	switch {
	case f > 0.5:
		n++
	case f == 0.5 && math.Mod(n, 2) != 0:
		n++
	case f < 0 && f <= -0.5:
		n--
	}
	return math.Ldexp(n, -1074)
}

// expDD returns exp(a) rounded to a double.
func expDD(a dd) float64 {
	switch {
	case math.IsNaN(a.hi):
		return a.hi
	case a.hi > 709.8:
		return math.Inf(1)
	case a.hi < -745.2:
		return 0
	}
	m, k := expmDD(a)
	return scaleRound(m, k)
}

// cExp is exp() as glibc computes it: correctly rounded.
func cExp(x float64) float64 {
	if math.IsInf(x, 0) || x == 0 {
		return math.Exp(x)
	}
	return expDD(dd{x, 0})
}

// logDD returns log(x) for a finite x > 0 as a double-double: Newton's step
// y + x*exp(-y) - 1 from y = math.Log of the mantissa doubles the precision.
func logDD(x float64) dd {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	y := math.Log(m)
	em, k := expmDD(dd{-y, 0})
	t := ddMulF(dd{math.Ldexp(em.hi, k), math.Ldexp(em.lo, k)}, m)
	t = ddAdd(t, dd{-1, 0})
	ly := ddAdd(dd{y, 0}, t)
	return ddAdd(ddMulF(ddLn2, float64(e)), ly)
}

// cLog is log() as glibc computes it: correctly rounded.
func cLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) || x == 1 {
		return math.Log(x)
	}
	return logDD(x).hi
}

// cPow is pow() as glibc computes it: C99 special cases, and otherwise the
// correctly rounded exp(y * log|x|) with the sign of an odd integer power.
func cPow(x, y float64) float64 {
	if x == 0 || y == 0 || x == 1 || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Pow(x, y)
	}
	neg := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		neg = math.Mod(y, 2) != 0
		x = -x
	}
	t := ddMulF(logDD(x), y)
	var r float64
	switch {
	case t.hi > 709.8:
		r = math.Inf(1)
	case t.hi < -745.2:
		r = 0
	default:
		r = expDD(t)
	}
	if neg {
		return -r
	}
	return r
}

// cSin is sin() as glibc computes it: correctly rounded. It is used for
// arguments in [0, 2*pi] (Box-Muller); other arguments fall back to
// math.Sin.
func cSin(x float64) float64 {
	if math.IsNaN(x) || math.Abs(x) > 8 {
		return math.Sin(x)
	}
	if x == 0 {
		return x
	}
	k := math.Round(x / pio2a)
	// r = x - k*pi/2 with pi/2 in three parts.
	r := ddAdd(dd{x, 0}, ddNeg(ddFromProd(k, pio2a)))
	r = ddAdd(r, ddNeg(ddFromProd(k, pio2b)))
	r = ddAdd(r, dd{float64(-k * pio2c), 0})
	var v dd
	switch int(k) & 3 {
	case 0:
		v = sinSeries(r)
	case 1:
		v = cosSeries(r)
	case 2:
		v = ddNeg(sinSeries(r))
	default:
		v = ddNeg(cosSeries(r))
	}
	return v.hi
}

// ddFromProd returns a*b exactly as a double-double.
func ddFromProd(a, b float64) dd {
	p, e := twoProd(a, b)
	return dd{p, e}
}

// sinSeries returns sin(r) for |r| <= pi/4.
func sinSeries(r dd) dd {
	r2 := ddMul(r, r)
	s := r
	term := r
	for i := 1; i <= 15; i++ {
		term = ddDivF(ddMul(term, r2), float64(-(2*i)*(2*i+1)))
		s = ddAdd(s, term)
		if math.Abs(term.hi) < 1e-36*math.Abs(s.hi) {
			break
		}
	}
	return s
}

// cosSeries returns cos(r) for |r| <= pi/4.
func cosSeries(r dd) dd {
	r2 := ddMul(r, r)
	s := dd{1, 0}
	term := dd{1, 0}
	for i := 1; i <= 15; i++ {
		term = ddDivF(ddMul(term, r2), float64(-(2*i-1)*(2*i)))
		s = ddAdd(s, term)
		if math.Abs(term.hi) < 1e-36 {
			break
		}
	}
	return s
}
