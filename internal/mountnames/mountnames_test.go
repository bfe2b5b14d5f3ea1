package mountnames

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestOthers(t *testing.T) {
	// IDs far from any real mount id, so holder falls back to the
	// longest mount point (these paths need not exist).
	tab, err := Parse([]byte(`90001 1 8:1 / / rw - ext4 /dev/sda1 rw
90002 90001 8:1 /home/u/ws/hooks /opt/hooks rw - ext4 /dev/sda1 rw
90003 90001 8:1 /home/u/ws/f /opt/f rw - ext4 /dev/sda1 rw
90004 90001 8:2 / /data rw - ext4 /dev/sda2 rw
90005 90001 8:2 /proj /opt/my\040tools rw - ext4 /dev/sda2 rw
90006 90001 0:31 /@home /home2 rw - btrfs /dev/sdb rw
90007 90001 0:31 /@ /sys2 rw - btrfs /dev/sdb rw
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/opt/hooks/guard.sh", []string{"/home/u/ws/hooks/guard.sh"}},
		{"/home/u/ws/hooks/guard.sh", []string{"/opt/hooks/guard.sh"}},
		{"/opt/hooks", []string{"/home/u/ws/hooks"}},
		{"/opt/f", []string{"/home/u/ws/f"}},
		{"/usr/bin/perl", nil},
		{"/home/u/ws/other", nil},
		{"/opt/my tools/hook.py", []string{"/data/proj/hook.py"}},
		{"/data/proj/x", []string{"/opt/my tools/x"}},
		{"/data/other", nil},
		{"/home2/u/x", nil}, // another subvolume of the same btrfs: no alias
		{"/sys2/usr/bin/x", nil},
	} {
		got, ok := tab.Others(c.path)
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("Others(%s) = %q, %v; want %q", c.path, got, ok, c.want)
		}
	}
	if _, err := Parse([]byte("1 2 3\n")); err == nil {
		t.Error("a short line parsed")
	}
}

// The real table: a temp file has no other name here unless a test
// namespace binds it (the bind case itself runs in settings and orgproc
// under unshare -m).
func TestReadReal(t *testing.T) {
	tab, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(f)
	names, ok := tab.Others(real)
	if !ok {
		t.Fatalf("no mount holds %s", real)
	}
	t.Logf("%s: other names %q", real, names)
}
