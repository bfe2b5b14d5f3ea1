package bridge

import (
	"fmt"
	"sync"
)

// editorSettings remembers whether the editor's settings were ever applied
// and why its last payload was refused. A refused payload keeps the
// previous editor settings in force (docs/settings.md, "Validation"); when
// there are none, the person's own rules from the editor (their deny rules
// among them) are not in force at all, so no agent starts until a payload
// is applied: a typo in the editor's settings never starts an agent with
// fewer rules than the person wrote.
type editorSettings struct {
	mu      sync.Mutex
	applied bool
	refused error
}

func (e *editorSettings) ok() {
	e.mu.Lock()
	e.applied, e.refused = true, nil
	e.mu.Unlock()
}

func (e *editorSettings) refuse(err error) {
	e.mu.Lock()
	e.refused = err
	e.mu.Unlock()
}

// blocked is why no agent may start now: the editor's settings were
// refused and none of its settings was ever applied; nil otherwise.
func (e *editorSettings) blocked() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.applied || e.refused == nil {
		return nil
	}
	return fmt.Errorf("no agent starts: the editor's settings were refused and none of them is in force yet (fix them and they apply at once): %w", e.refused)
}
