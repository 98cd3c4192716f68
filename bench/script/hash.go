package script

import "math/bits"

const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(val, seed): FNV-1a over the 8 octets of
// val, least significant first, with the offset basis XORed with the seed.
func HashFNV1a(val int64, seed uint64) int64 {
	result := uint64(fnvOffsetBasis) ^ seed
	for i := 0; i < 8; i++ {
		octet := uint64(val & 0xff)
		val >>= 8 // arithmetic shift, as in pgbench
		result ^= octet
		result *= fnvPrime
	}
	return int64(result)
}

// HashMurmur2 is pgbench's hash_murmur2(val, seed) (also hash()): 64-bit
// MurmurHash2 of the 8-byte value.
func HashMurmur2(val int64, seed uint64) int64 {
	result := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	result ^= k
	result *= mm2Mul
	result ^= result >> mm2Rot
	result *= mm2Mul
	result ^= result >> mm2Rot
	return int64(result)
}

// Permute is pgbench's permute(val, size, seed): a pseudorandom permutation
// of [0, size) selected by seed. It returns 0 when size < 2; pgbench itself
// rejects size <= 0 before calling it.
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	state := NewPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := (uint64(1) << masklen) - 1
	for i := 0; i < 6; i++ {
		m := (state.Uint64() & mask) | 1
		r := state.Uint64() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		m = (state.Uint64() & mask) | 1
		r = state.Uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		r = state.Uint64Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}
