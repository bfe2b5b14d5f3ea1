package policy

import "sync"

// arena holds the memory one evaluation's reading of a shell command is
// made of (the analysis, its analyzer, the sub-command and path blocks, the
// words of the fast path, the path facts), so that Evaluate and Decide,
// which drop the analysis when they return, hand it to the next call
// instead of to the garbage collector: most of a compound command's
// allocation, and the collection it causes, was these blocks.
//
// An arena is used by one evaluation at a time and released only when
// nothing of that evaluation can still be reached by the caller (the
// verdict and the answers hold strings and slices of their own, never a
// part of these blocks). Released memory is zeroed, so a block handed out
// again reads as freshly allocated: nothing of one call's reading can leak
// into another's (TestArenaReuseIsClean).
type arena struct {
	ev    evaluator
	an    shellAnalysis
	a     analyzer
	subs  []subCmd // shellAnalysis.subs
	slab  []subCmd // analyzer.subSlab
	refs  []pathRef
	words []word
	infos []pathInfo
	plain []word   // progDecl.scan's plain words, carved per call (wordBuf)
	strs  []string // the arguments as strings, carved per call (wordStrings)
	// folds: the case-folded forms of the paths met so far (caseFolded).
	folds []foldMemo
	used  bool
}

// foldMemo: a path's lexical and real forms and their case-folded ones.
type foldMemo struct {
	abs, real, fabs, freal string
	changed                bool
}

// arenaMax bounds what a released arena keeps: a huge command's blocks go
// to the collector rather than stay pinned in the pool.
const arenaMax = 256

var arenaPool = sync.Pool{New: func() any { return new(arena) }}

func getArena() *arena {
	ar := arenaPool.Get().(*arena)
	ar.used = true
	return ar
}

// release zeroes what the evaluation used (reset) and returns the arena to
// the pool.
func (ar *arena) release() {
	if ar == nil || !ar.used {
		return
	}
	ar.reset()
	arenaPool.Put(ar)
}

// reset zeroes what the evaluation used, taking back the blocks the
// reading ended with (grown ones included), and keeps them for the next.
func (ar *arena) reset() {
	keep := func(n int) bool { return n <= arenaMax }
	// take back the blocks the analysis ended with (grown ones included)
	if ar.a.an == &ar.an {
		ar.subs = ar.an.subs
		ar.slab = ar.a.subSlab
		ar.refs = ar.a.refSlab
	}
	if ar.ev.ar == ar {
		ar.infos = ar.ev.envStore.infos
	}
	// These four blocks only ever grow at their end (append, or a region
	// carved by moving the end first), so what was written is [:len]; the
	// rest is as zero as when made or last cleared.
	clear(ar.subs)
	clear(ar.slab)
	clear(ar.refs)
	clear(ar.words[:cap(ar.words)])
	clear(ar.infos)
	clear(ar.plain[:cap(ar.plain)])
	clear(ar.strs[:cap(ar.strs)])
	clear(ar.folds[:cap(ar.folds)])
	ar.an = shellAnalysis{}
	ar.a = analyzer{}
	ar.ev = evaluator{}
	if !keep(cap(ar.subs)) {
		ar.subs = nil
	}
	if !keep(cap(ar.slab)) {
		ar.slab = nil
	}
	if !keep(cap(ar.refs)) {
		ar.refs = nil
	}
	if !keep(cap(ar.words)) {
		ar.words = nil
	}
	if !keep(cap(ar.infos)) {
		ar.infos = nil
	}
	if !keep(cap(ar.plain)) {
		ar.plain = nil
	}
	if !keep(cap(ar.strs)) {
		ar.strs = nil
	}
	if !keep(cap(ar.folds)) {
		ar.folds = nil
	}
	ar.subs, ar.slab, ar.refs, ar.words = ar.subs[:0], ar.slab[:0], ar.refs[:0], ar.words[:0]
	ar.infos, ar.plain, ar.strs, ar.folds = ar.infos[:0], ar.plain[:0], ar.strs[:0], ar.folds[:0]
	ar.used = false
}

// wordBuf is an empty slice with room for n words: carved from the arena's
// block when there is one (its cap is n, so an append past n gets an array
// of its own and never writes into another's region), else made as
// progDecl.scan makes it.
func (a *analyzer) wordBuf(n int) []word {
	if a.ar == nil {
		if n > 1 {
			return make([]word, 0, n)
		}
		return nil
	}
	b := &a.ar.plain
	l := len(*b)
	if cap(*b)-l < n {
		*b = make([]word, 0, max(n, 32))
		l = 0
	}
	*b = (*b)[:l+n]
	return (*b)[l : l : l+n]
}

// wordStrings is the words' values, carved like wordBuf.
func (a *analyzer) wordStrings(ws []word) []string {
	if a.ar == nil {
		return wordStrings(ws)
	}
	b := &a.ar.strs
	l := len(*b)
	n := len(ws)
	if cap(*b)-l < n {
		*b = make([]string, 0, max(n, 32))
		l = 0
	}
	*b = (*b)[:l+n]
	ss := (*b)[l : l+n : l+n]
	for i, w := range ws {
		ss[i] = w.s
	}
	return ss
}
