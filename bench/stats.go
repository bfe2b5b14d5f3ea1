package bench

import (
	"math"
	"slices"
)

// Spread is the median of several runs and their range.
type Spread struct {
	Median, Min, Max float64
	N                int
}

// SpreadOf summarises xs (NaN when empty).
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Spread{Median: quantileSorted(s, 0.5), Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// Quantile returns the q-quantile (0..1) of xs by linear interpolation
// between closest ranks (NaN when empty).
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantileSorted(s, q)
}

func quantileSorted(s []float64, q float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	frac := pos - float64(lo)
	return s[lo]*(1-frac) + s[hi]*frac
}
