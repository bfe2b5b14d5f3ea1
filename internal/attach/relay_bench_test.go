package attach

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"
)

// countWriter counts what reaches the editor and signals when n bytes did.
type countWriter struct {
	n    int
	want int
	done chan struct{}
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	if c.n >= c.want && c.done != nil {
		close(c.done)
		c.done = nil
	}
	return len(p), nil
}

// BenchmarkRelayUpdates: session/update lines from the bridge to an
// attached editor (stdio) through the front; bytes/op is one line.
func BenchmarkRelayUpdates(b *testing.B) {
	line := []byte(update("s1", 1) + "\n")
	var all bytes.Buffer
	for i := 0; i < b.N; i++ {
		all.Write(line)
	}
	inR, inW := io.Pipe()
	go func() { _, _ = io.Copy(io.Discard, inR) }()
	f, err := New(Options{Dir: filepath.Join(b.TempDir(), "attach"), Token: "tok"}, inW, bytes.NewReader(all.Bytes()))
	if err != nil {
		b.Fatal(err)
	}
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	out := &countWriter{want: all.Len(), done: make(chan struct{})}
	done := out.done
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	f.Serve(context.Background(), stdinR, out)
	<-done
}
