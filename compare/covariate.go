package compare

import "math"

// The machine's speed.
//
// On a small virtual machine the CPU time a step takes moves from one run
// to the next by a fifth or more with nothing else changed: the machine's
// speed, its caches and the host's other guests. Both the server's CPU
// and the client's move with it (on a 2-core VM the change of a quick
// commit case's time between the two sides of a round correlated 0.93
// with that of pglab's own CPU over the step). pglab's client runs the
// same code against either target, so what its CPU does between the two
// sides of a round is the machine's doing, not the version's: a covariate
// whose expected change is zero (Input.Covariate). A paired change whose
// covariate is given is adjusted for it (CUPED, Deng et al., WSDM 2013;
// a concurrent covariate):
//
//	d'_r = d_r − β·x_r,   β = Σ (x − x̄)(d − d̄) / Σ (x − x̄)²
//
// with x_r the covariate's change of round r on the same scale: the
// intercept of the regression of the rounds' changes on the covariate's,
// tested as ordinary least squares tests it (Student with n − 2 degrees
// of freedom, its standard error s·√(1/n + x̄²/Sxx)), which is exact
// whatever the covariate's values when its expected change is zero. Its
// estimate moves by −β·x̄ (the covariate's imbalance over the rounds) and
// its spread shrinks to that of the residuals.
//
// Whether the client does the same work on every target is the study's
// to say (a version that sends fewer bytes changes it, as 17's COPY TO
// does; a client that waits on one statement spends its CPU in its
// samplers, in proportion to the step's time, and is no covariate:
// results.Presentation.SpeedCovariate). Every change of a study
// that says so is adjusted from covariateMin rounds on, whatever the
// covariate's correlation or imbalance: choosing by them would leave the
// unadjusted test on exactly the rounds where the machine's speed moved
// one side (a fallback that called a fifth of a null's chance calls
// again in simulation). Only a covariate that moved covariateBalance of
// its standard errors, which a version's doing would and chance almost
// never does, is left out.

// covariateMin is the fewest rounds an adjustment needs.
const covariateMin = 6

// covariateBalance is how many of its standard errors the covariate's
// mean change may be from zero for the adjustment.
const covariateBalance = 5.0

// withCovariate pairs the covariate's values of each side (cb with b's
// rounds rb, ct with t's rt, leaving out skip) with e's rounds and
// adjusts e. A round without a positive covariate on both sides leaves e
// unadjusted.
func (e *pairedEffect) withCovariate(cb, ct []float64, rb, rt, skip []int) {
	if e.scale != scaleLog || len(cb) != len(rb) || len(ct) != len(rt) {
		return
	}
	c := newPairedEffect(cb, ct, rb, rt, skip)
	if c.scale != scaleLog {
		return
	}
	byRound := map[int]float64{}
	for i, r := range c.rounds {
		byRound[r] = c.d[i]
	}
	x := make([]float64, len(e.rounds))
	for i, r := range e.rounds {
		v, ok := byRound[r]
		if !ok {
			return
		}
		x[i] = v
	}
	e.raw, e.x = e.d, x
	e.adjust()
}

// adjust sets d from raw and x: adjusted with rounds enough unless the
// covariate moved far; raw otherwise.
func (e *pairedEffect) adjust() {
	e.d, e.beta, e.corr, e.lost, e.inflate = e.raw, 0, 0, 0, 1
	n := len(e.raw)
	if n < covariateMin || len(e.x) != n {
		return
	}
	mx, md := meanOf(e.x), meanOf(e.raw)
	sxx, sxd, sdd := 0.0, 0.0, 0.0
	for i := range n {
		dx, dd := e.x[i]-mx, e.raw[i]-md
		sxx += dx * dx
		sxd += dx * dd
		sdd += dd * dd
	}
	if sxx == 0 || sdd == 0 {
		return
	}
	corr := sxd / math.Sqrt(sxx*sdd)
	seX := math.Sqrt(sxx/float64(n-1)) / math.Sqrt(float64(n))
	if math.Abs(mx) > covariateBalance*seX {
		return
	}
	beta := sxd / sxx
	d := make([]float64, n)
	for i := range n {
		d[i] = e.raw[i] - beta*e.x[i]
	}
	// The adjusted mean d̄ − β·x̄ has the variance of the residuals times
	// 1/n + x̄²/Sxx, and the residuals n − 2 degrees of freedom where the
	// sample deviation of d' counts n − 1.
	e.inflate = math.Sqrt(float64(n-1) / float64(n-2) * (1 + float64(n)*mx*mx/sxx))
	e.d, e.beta, e.corr, e.lost = d, beta, corr, 1
}

// meanOf returns the mean of x (0 when empty).
func meanOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
