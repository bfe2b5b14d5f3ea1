package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// RunInit runs inside a sandbox with a proxied network, in front of the
// agent: it listens on 127.0.0.1:ProxyPort of the sandbox's network
// namespace, relays every connection to the bridge's proxy through the Unix
// socket sock, starts argv with the standard streams and the environment,
// passes SIGINT, SIGTERM and SIGHUP on to it, and returns its exit status
// (128+signal when a signal ended it). The relay is listening before argv
// starts, so the agent's first connection finds it.
func RunInit(sock string, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(argv) == 0 {
		return 2, errors.New("sandbox-init: no command")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ProxyPort)))
	if err != nil {
		return 2, fmt.Errorf("sandbox-init: the relay cannot listen: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = serveRelay(ctx, ln, sock) }()

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 127, fmt.Errorf("sandbox-init: %w", err)
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 1, fmt.Errorf("sandbox-init: %w", err)
}
