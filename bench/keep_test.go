package bench

import "testing"

func TestKeepWebviewSection(t *testing.T) {
	const block = "<!-- bench-webview:start -->\n## 7. The chat webview\n| a |\n<!-- bench-webview:end -->"
	const fresh = "# Benchmarks\n\n## 6. The OS sandbox\n\nFault-injection and fuzzing coverage: see [testing.md](testing.md).\n"
	cases := []struct {
		name, old, want string
	}{
		{"kept before the pointer", "# old\n\n" + block + "\n\nFault-injection and fuzzing coverage: see x\n",
			"# Benchmarks\n\n## 6. The OS sandbox\n\n" + block + "\n\nFault-injection and fuzzing coverage: see [testing.md](testing.md).\n"},
		{"no section", "# old\n", fresh},
		{"only a start marker", "<!-- bench-webview:start -->\n## 7\n", fresh},
	}
	for _, c := range cases {
		if got := KeepWebviewSection(c.old, fresh); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if got := KeepWebviewSection(block, "# Benchmarks\n"); got != "# Benchmarks\n\n"+block+"\n\n" {
		t.Errorf("at the end: got %q", got)
	}
}

// The Fleet section (make bench-fleet) is kept too, after the webview's.
func TestKeepFleetSection(t *testing.T) {
	const web = "<!-- bench-webview:start -->\n## 7\n<!-- bench-webview:end -->"
	const fleet = "<!-- bench-fleet:start -->\n## Fleet\n<!-- bench-fleet:end -->"
	const fresh = "# Benchmarks\n\nFault-injection and fuzzing coverage: x\n"
	old := "# old\n\n" + web + "\n\n" + fleet + "\n\nFault-injection and fuzzing coverage: x\n"
	got := KeepFleetSection(old, KeepWebviewSection(old, fresh))
	if want := "# Benchmarks\n\n" + web + "\n\n" + fleet + "\n\nFault-injection and fuzzing coverage: x\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := KeepFleetSection("# old\n", fresh); got != fresh {
		t.Errorf("no section: got %q", got)
	}
}
