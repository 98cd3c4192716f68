package script

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"time"
)

// PRNG is PostgreSQL's pg_prng: the xoroshiro128** 1.0 generator of
// src/common/pg_prng.c, with the same seeding (splitmix64) and the same
// derivations of ranges, doubles and normal deviates. Given the same state it
// produces the same sequence as pgbench.
//
// PRNG is a small value type: copy it to save and restore a state (pgbench
// restores a client's state when it retries a transaction). The zero PRNG is
// not seeded; use NewPRNG or Seed.
type PRNG struct {
	s0, s1 uint64
}

// NewPRNG returns a generator seeded from a 64-bit seed (pg_prng_seed).
func NewPRNG(seed uint64) PRNG {
	var r PRNG
	r.Seed(seed)
	return r
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97f4A7C15
	val := *state
	val = (val ^ (val >> 30)) * 0xBF58476D1CE4E5B9
	val = (val ^ (val >> 27)) * 0x94D049BB133111EB
	return val ^ (val >> 31)
}

// Seed sets the state from a 64-bit seed (pg_prng_seed).
func (r *PRNG) Seed(seed uint64) {
	r.s0 = splitmix64(&seed)
	r.s1 = splitmix64(&seed)
	r.checkSeed()
}

// SeedFloat sets the state from a double in [-1, 1] (pg_prng_fseed).
func (r *PRNG) SeedFloat(fseed float64) {
	seed := int64(float64((uint64(1)<<52)-1) * fseed)
	r.Seed(uint64(seed))
}

func (r *PRNG) checkSeed() {
	if r.s0 == 0 && r.s1 == 0 {
		r.s0 = 0x5851F42D4C957F2D
		r.s1 = 0x14057B7EF767814F
	}
}

// State returns the two state words.
func (r *PRNG) State() (s0, s1 uint64) { return r.s0, r.s1 }

// SetState sets the two state words; an all-zero state is replaced as
// pg_prng_seed_check does.
func (r *PRNG) SetState(s0, s1 uint64) {
	r.s0, r.s1 = s0, s1
	r.checkSeed()
}

func (r *PRNG) next() uint64 {
	s0 := r.s0
	sx := r.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	r.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	r.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// Uint64 returns a uniform value in [0, 2^64) (pg_prng_uint64).
func (r *PRNG) Uint64() uint64 { return r.next() }

// Uint64Range returns a uniform value in [rmin, rmax]; rmin if the range is
// empty (pg_prng_uint64_range, bitmask rejection).
func (r *PRNG) Uint64Range(rmin, rmax uint64) uint64 {
	var val uint64
	if rmax > rmin {
		rng := rmax - rmin
		rshift := uint(bits.LeadingZeros64(rng))
		for {
			val = r.next() >> rshift
			if val <= rng {
				break
			}
		}
	}
	return rmin + val
}

// Int64 returns a uniform int64 (pg_prng_int64).
func (r *PRNG) Int64() int64 { return int64(r.next()) }

// Int64p returns a uniform int64 in [0, 2^63) (pg_prng_int64p).
func (r *PRNG) Int64p() int64 { return int64(r.next() & 0x7FFFFFFFFFFFFFFF) }

// Uint32 returns a uniform uint32 from the upper bits (pg_prng_uint32).
func (r *PRNG) Uint32() uint32 { return uint32(r.next() >> 32) }

// Int32 returns a uniform int32 from the upper bits (pg_prng_int32).
func (r *PRNG) Int32() int32 { return int32(r.next() >> 32) }

// Int32p returns a uniform int32 in [0, 2^31) (pg_prng_int32p).
func (r *PRNG) Int32p() int32 { return int32(r.next() >> 33) }

// Double returns a uniform double in [0, 1) with 52 random bits
// (pg_prng_double).
func (r *PRNG) Double() float64 {
	v := r.next()
	return math.Ldexp(float64(v>>(64-52)), -52)
}

// DoubleNormal returns a standard normal deviate with the Box-Muller
// transform (pg_prng_double_normal).
func (r *PRNG) DoubleNormal() float64 { return r.normalPrecise() }

// Bool returns a random boolean from the top bit (pg_prng_bool).
func (r *PRNG) Bool() bool { return r.next()>>63 != 0 }

// Derive returns a new generator seeded from this generator's next value, as
// pgbench's initRandomState does with its base sequence.
func (r *PRNG) Derive() PRNG { return NewPRNG(r.Uint64()) }

// Uniform returns min + a uniform offset in [0, max-min] (pgbench's getrand).
// The caller checks that max-min does not overflow.
func (r *PRNG) Uniform(min, max int64) int64 {
	return min + int64(r.Uint64Range(0, uint64(max-min)))
}

// Exponential returns a value in [min, max] from pgbench's truncated
// exponential distribution (getExponentialRand); parameter must be > 0.
func (r *PRNG) Exponential(min, max int64, parameter float64) int64 {
	uniform := 1.0 - r.Double()
	n := float64(max - min + 1)
	// Fast path with Go's exp and log; when the result could be on the
	// other side of an integer with glibc's, use the correctly rounded
	// functions (see ddmath.go).
	cut := math.Exp(-parameter)
	rnd := -math.Log(cut+float64((1.0-cut)*uniform)) / parameter
	v := n * rnd
	margin := n*(1.6e-14/parameter+1.6e-14*math.Abs(rnd)) + math.Abs(v)*8e-15
	if nearInteger(v, margin) {
		v = n * exponentialPrecise(uniform, parameter)
	}
	return min + truncToInt64(v)
}

func exponentialPrecise(uniform, parameter float64) float64 {
	cut := cExp(-parameter)
	// The explicit conversion keeps Go from fusing the multiply-add.
	return -cLog(cut+float64((1.0-cut)*uniform)) / parameter
}

// nearInteger reports whether v is within margin of an integer, or not a
// usable number.
func nearInteger(v, margin float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(margin) || margin >= 0.5 {
		return true
	}
	f := v - math.Floor(v)
	return f <= margin || f >= 1-margin
}

// Gaussian returns a value in [min, max] from pgbench's truncated normal
// distribution (getGaussianRand); parameter must be >= 2.
func (r *PRNG) Gaussian(min, max int64, parameter float64) int64 {
	saved := *r
	n := float64(max - min + 1)
	// Fast path: Box-Muller with Go's log and sin, bounding the difference
	// with glibc's; replay with the precise functions when a decision or the
	// result is too close to call.
	var stdev float64
	close := false
	for {
		u1 := 1.0 - r.Double()
		u2 := 1.0 - r.Double()
		sq := math.Sqrt(-2.0 * math.Log(u1))
		stdev = sq * math.Sin(float64(2.0*math.Pi)*u2)
		errBound := sq*1.6e-14 + 1e-300
		if math.Abs(math.Abs(stdev)-parameter) <= errBound {
			close = true
		}
		if !(stdev < -parameter || stdev >= parameter) {
			break
		}
	}
	rnd := (stdev + parameter) / (parameter * 2.0)
	v := n * rnd
	margin := n*(6*1.6e-14)/(2*parameter) + math.Abs(v)*8e-15
	if close || nearInteger(v, margin) {
		*r = saved
		for {
			stdev = r.normalPrecise()
			if !(stdev < -parameter || stdev >= parameter) {
				break
			}
		}
		v = n * ((stdev + parameter) / (parameter * 2.0))
	}
	return min + truncToInt64(v)
}

// normalPrecise is DoubleNormal.
func (r *PRNG) normalPrecise() float64 {
	u1 := 1.0 - r.Double()
	u2 := 1.0 - r.Double()
	return math.Sqrt(-2.0*cLog(u1)) * cSin(float64(2.0*math.Pi)*u2)
}

// Poisson returns a value whose mean is center (getPoissonRand), as pgbench
// uses to schedule transactions under --rate.
func (r *PRNG) Poisson(center float64) int64 {
	uniform := 1.0 - r.Double()
	l := math.Log(uniform)
	v := float64(-l*center) + 0.5
	if nearInteger(v, math.Abs(l*center)*8e-15+math.Abs(v)*8e-15) {
		v = float64(-cLog(uniform)*center) + 0.5
	}
	return truncToInt64(v)
}

// Zipfian returns a value in [min, max] from pgbench's zipfian distribution
// (getZipfianRand: Devroye's rejection method); s must be in [1.001, 1000].
func (r *PRNG) Zipfian(min, max int64, s float64) int64 {
	n := max - min + 1
	if n <= 1 {
		return min
	}
	saved := *r
	if x, ok := r.zipfianFast(n, s); ok {
		return min - 1 + x
	}
	*r = saved
	return min - 1 + r.zipfianPrecise(n, s)
}

// fastPow returns x^y for finite x > 0 as exp(y*log(x)) and a bound on
// its relative difference with glibc's pow: the error of the exponent grows
// with |y*log(x)|.
func fastPow(x, y float64) (float64, float64) {
	z := y * math.Log(x)
	return math.Exp(z), (math.Abs(z) + 16) * 8e-16
}

// zipfianFast runs the rejection loop with Go's exp and log, and fails when
// a floor or a comparison could go the other way with glibc's pow.
func (r *PRNG) zipfianFast(n int64, s float64) (int64, bool) {
	e := -1.0 / (s - 1.0)
	b, relB := fastPow(2.0, s-1.0)
	db := b * relB
	for {
		u := r.Double()
		v := r.Double()
		if u == 0 {
			return 0, false // pow(0, e) is +Inf: let the precise path decide
		}
		px, relX := fastPow(u, e)
		if math.IsInf(px, 0) || math.IsNaN(px) {
			return 0, false
		}
		margin := px * relX
		if px-margin > float64(n)+1 {
			continue // x > n with either pow: rejected
		}
		if nearInteger(px, margin) {
			return 0, false
		}
		x := math.Floor(px)
		t, relT := fastPow(1.0+1.0/x, s-1.0)
		dt := t * relT
		lhs := v * x * (t - 1.0) / (b - 1.0)
		rhs := t / b
		lhsErr := v*x*dt/math.Abs(b-1) + math.Abs(lhs)*(db/math.Abs(b-1)+4e-15)
		rhsErr := dt/b + rhs*(db/b+4e-15)
		if !(math.Abs(lhs-rhs) > 4*(lhsErr+rhsErr)) {
			return 0, false
		}
		if lhs <= rhs && x <= float64(n) {
			return int64(x), true
		}
	}
}

// zipfianPrecise is pgbench's computeIterativeZipfian with glibc's pow.
func (r *PRNG) zipfianPrecise(n int64, s float64) int64 {
	b := cPow(2.0, s-1.0)
	var x float64
	for {
		u := r.Double()
		v := r.Double()
		x = math.Floor(cPow(u, -1.0/(s-1.0)))
		t := cPow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			break
		}
	}
	return int64(x)
}

// truncToInt64 converts like x86-64's cvttsd2si, as pgbench's (int64) casts
// do there: NaN and out-of-range values give math.MinInt64.
func truncToInt64(f float64) int64 {
	if math.IsNaN(f) || f >= 0x1p63 || f < -0x1p63 {
		return math.MinInt64
	}
	return int64(f)
}

// ThreadRandom holds the random states pgbench gives each thread.
type ThreadRandom struct {
	Choose   PRNG // script choice (chooseScript)
	Throttle PRNG // --rate schedule (getPoissonRand)
	Sample   PRNG // --sampling-rate log sampling
}

// RunRandom holds every random state pgbench derives from its base seed, in
// pgbench's order of derivation.
type RunRandom struct {
	// Clients[i] is client i's state for the random functions (cs_func_rs).
	Clients []PRNG
	// DefaultSeed is the value of the default_seed variable; it is drawn only
	// when default_seed was not given with -D (HasDefaultSeed false).
	DefaultSeed    int64
	HasDefaultSeed bool
	// Threads[i] holds thread i's states.
	Threads []ThreadRandom
	// Base is the base sequence after all the derivations.
	Base PRNG
}

// DeriveRunRandom reproduces pgbench's seeding from the base seed (see
// ParseRandomSeed): first one state per client in client order, then
// default_seed (skipped when defaultSeedDefined, i.e. set with -D), then three
// states per thread (choose, throttle, sample). nthreads must already be
// capped to nclients as pgbench does.
func DeriveRunRandom(seed uint64, nclients, nthreads int, defaultSeedDefined bool) RunRandom {
	base := NewPRNG(seed)
	rr := RunRandom{Clients: make([]PRNG, max(nclients, 0)), Threads: make([]ThreadRandom, max(nthreads, 0))}
	for i := range rr.Clients {
		rr.Clients[i] = base.Derive()
	}
	if !defaultSeedDefined {
		rr.DefaultSeed = int64(base.Uint64())
		rr.HasDefaultSeed = true
	}
	for i := range rr.Threads {
		rr.Threads[i].Choose = base.Derive()
		rr.Threads[i].Throttle = base.Derive()
		rr.Threads[i].Sample = base.Derive()
	}
	rr.Base = base
	return rr
}

// RandomSeedError is pgbench's error for a bad --random-seed or
// PGBENCH_RANDOM_SEED value.
type RandomSeedError struct {
	Value string
}

// Error returns pgbench's message; pgbench prints Detail() on the next line.
func (e *RandomSeedError) Error() string {
	return fmt.Sprintf("unrecognized random seed option \"%s\"", e.Value)
}

// Detail returns pgbench's detail line for the error.
func (e *RandomSeedError) Detail() string {
	return "Expecting an unsigned integer, \"time\" or \"rand\"."
}

// ParseRandomSeed interprets a --random-seed value as pgbench's
// set_random_seed: "time" (also the default when no seed is given) uses the
// clock in microseconds, "rand" uses a strong random source, anything else
// must be an unsigned integer (sscanf "%lu": leading spaces and a sign are
// accepted, a minus wraps around). The random_seed variable gets
// int64(seed), and pgbench prints "setting random seed to <seed>" when a seed
// was given explicitly.
func ParseRandomSeed(s string) (uint64, error) {
	switch s {
	case "time":
		return uint64(time.Now().UnixMicro()), nil
	case "rand":
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 0, fmt.Errorf("could not generate random seed: %w", err)
		}
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	v, ok := scanUnsignedLong(s)
	if !ok {
		return 0, &RandomSeedError{Value: s}
	}
	return v, nil
}

// scanUnsignedLong emulates sscanf(s, "%lu%c", ...) == 1 on 64-bit glibc.
func scanUnsignedLong(s string) (uint64, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, false
	}
	var v uint64
	overflow := false
	for i < len(s) && isDigit(s[i]) {
		hi, lo := bits.Mul64(v, 10)
		lo2, carry := bits.Add64(lo, uint64(s[i]-'0'), 0)
		if hi != 0 || carry != 0 {
			overflow = true
		}
		v = lo2
		i++
	}
	if i != len(s) {
		return 0, false
	}
	if overflow {
		return math.MaxUint64, true
	}
	if neg {
		v = -v
	}
	return v, true
}
