package compare

import "math"

// tQuantile975 are the 0.975 quantiles of Student's t distribution for 1
// to 30 degrees of freedom (two-sided 95 %).
var tQuantile975 = []float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// BatchMeans estimates the mean of a stationary but autocorrelated series
// — a load run's throughput per second — and the half-width of the 95 %
// confidence interval of that mean, by the method of batch means: the
// series is cut into k batches of equal length (the first len(x) mod k
// values are dropped, the oldest), and the batch means, nearly independent
// when the batches are long compared with the series' correlation, give
// the interval mean ± t(0.975, k−1)·s/√k, s their standard deviation.
//
// The values of one run are not repetitions: this only says how precisely
// one run measured its own mean (how long it had to last), never whether
// two targets differ — that is the U test over runs. ok is false with
// fewer than 2 values per batch, k < 2 or k > 31.
func BatchMeans(x []float64, k int) (mean, halfWidth float64, ok bool) {
	if k < 2 || k > len(tQuantile975)+1 || len(x) < 2*k {
		return math.NaN(), math.NaN(), false
	}
	size := len(x) / k
	x = x[len(x)-size*k:]
	means := make([]float64, k)
	for b := range k {
		s := 0.0
		for _, v := range x[b*size : (b+1)*size] {
			s += v
		}
		means[b] = s / float64(size)
		mean += means[b]
	}
	mean /= float64(k)
	ss := 0.0
	for _, m := range means {
		ss += (m - mean) * (m - mean)
	}
	sd := math.Sqrt(ss / float64(k-1))
	return mean, tQuantile975[k-2] * sd / math.Sqrt(float64(k)), true
}
