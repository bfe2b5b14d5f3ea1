package approvals

import (
	"errors"
	"testing"
)

// The aliases are the permission package's broker: an approval resolved
// through one name is resolved for the other, and a second answer is refused.
func TestAliasesAreThePermissionBroker(t *testing.T) {
	b := NewBroker(nil)
	a, err := b.Open(Ticket{ID: "x", SessionID: "s", Agent: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Resolve("x", Resolution{Outcome: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	if got := a.Resolution().Outcome; got != "cancelled" {
		t.Fatalf("outcome %q, want cancelled", got)
	}
	if err := b.Resolve("x", Resolution{Outcome: "selected"}); !errors.Is(err, ErrAlreadyResolved) {
		t.Fatalf("second answer: %v, want ErrAlreadyResolved", err)
	}
}
