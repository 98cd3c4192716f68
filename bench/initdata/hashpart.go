package initdata

import "math/bits"

// hashPartitionSeed is PostgreSQL's HASH_PARTITION_SEED: the seed its
// hash partitioning passes to the key type's extended hash function.
const hashPartitionSeed uint64 = 0x7A5B22367996DCFD

// hashUint32Extended is PostgreSQL's hash_uint32_extended (Bob Jenkins'
// lookup3 mix and final steps over one 32-bit word, with a 64-bit seed).
func hashUint32Extended(k uint32, seed uint64) uint64 {
	a := uint32(0x9e3779b9 + 4 + 3923095)
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		// mix
		a -= c
		a ^= bits.RotateLeft32(c, 4)
		c += b
		b -= a
		b ^= bits.RotateLeft32(a, 6)
		a += c
		c -= b
		c ^= bits.RotateLeft32(b, 8)
		b += a
		a -= c
		a ^= bits.RotateLeft32(c, 16)
		c += b
		b -= a
		b ^= bits.RotateLeft32(a, 19)
		a += c
		c -= b
		c ^= bits.RotateLeft32(b, 4)
		b += a
	}
	a += k
	// final
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return uint64(b)<<32 | uint64(c)
}

// hashInt4Extended is PostgreSQL's hashint4extended.
func hashInt4Extended(v int32, seed uint64) uint64 {
	return hashUint32Extended(uint32(v), seed)
}

// hashInt8Extended is PostgreSQL's hashint8extended: it folds the high
// half into the low half so that values fitting in int4 hash alike.
func hashInt8Extended(v int64, seed uint64) uint64 {
	lo, hi := uint32(v), uint32(v>>32)
	if v >= 0 {
		lo ^= hi
	} else {
		lo ^= ^hi
	}
	return hashUint32Extended(lo, seed)
}

// hashCombine64 is PostgreSQL's hash_combine64.
func hashCombine64(a, b uint64) uint64 {
	a ^= b + 0x49a0f4dd15e5a8e3 + (a << 54) + (a >> 7)
	return a
}

// partitionHash returns the row hash PostgreSQL's hash partitioning
// computes for a one-column integer key with the default operator class;
// the row goes to the partition whose remainder is hash % modulus.
func partitionHash(aid int64, bigint bool) uint64 {
	var h uint64
	if bigint {
		h = hashInt8Extended(aid, hashPartitionSeed)
	} else {
		h = hashInt4Extended(int32(aid), hashPartitionSeed)
	}
	return hashCombine64(0, h)
}
