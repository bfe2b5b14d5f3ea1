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
