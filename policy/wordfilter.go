package policy

// wordFilter answers "certainly not in the set" for a word without hashing
// it into a map: a 4,096-bit set of the words' FNV-1a hashes. A word whose
// bit is clear is in no set the filter was built from; one whose bit is set
// is looked up in the map as before. It turns away the common case (a
// program with no declaration, a first word no Bash rule names) for a few
// nanoseconds, where a map miss costs a hash and a probe; it never answers
// for the map (TestWordFilterSound).
type wordFilter [64]uint64

func wordHash(w string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return h
}

func (f *wordFilter) add(w string) {
	h := wordHash(w) & 4095
	f[h>>6] |= 1 << (h & 63)
}

// mayHave: false only when w was never added.
func (f *wordFilter) mayHave(w string) bool {
	h := wordHash(w) & 4095
	return f[h>>6]&(1<<(h&63)) != 0
}
