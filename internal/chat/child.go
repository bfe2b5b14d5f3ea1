package chat

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"go.uber.org/zap"
)

// stopGrace is how long a child gets to exit after its stdin closes, and
// again after the terminate signal, before it is killed.
var stopGrace = 2 * time.Second

// child is the spawned agent process and our ends of its pipes.
type child struct {
	cmd    *exec.Cmd
	stdin  *os.File // we write the protocol here
	stdout *os.File // and read it here
	stderr *os.File // drained into the logger
	log    *zap.Logger

	exited     chan struct{} // closed when Wait returned
	waitErr    error         // set before exited closes
	stderrDone chan struct{} // closed when the stderr goroutine ended
}

func startChild(command string, args []string, dir string, log *zap.Logger) (*child, error) {
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	setProcAttr(cmd)

	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	// *os.File ends go to the child as they are: exec starts no copying
	// goroutines, and Wait never closes our ends.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("start %s: %w", command, err)
	}
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()

	c := &child{
		cmd: cmd, stdin: inW, stdout: outR, stderr: errR,
		log:        log.With(zap.Int("pid", cmd.Process.Pid)),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	c.log.Debug("agent started", zap.String("command", command), zap.Strings("args", args))
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	go func() {
		defer close(c.stderrDone)
		sc := bufio.NewScanner(errR)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			c.log.Info("agent stderr", zap.String("line", sc.Text()))
		}
	}()
	return c, nil
}

// gone describes how the child left after it closed its stdout: its exit
// status if it exits within stopGrace (stop kills it otherwise).
func (c *child) gone() error {
	if !c.waitFor(stopGrace) {
		return errors.New("agent closed its stdout")
	}
	if c.waitErr == nil {
		return errors.New("agent exited")
	}
	return fmt.Errorf("agent exited: %w", c.waitErr)
}

// stop ends the child: stdin closes (ACP's way to ask an agent to leave),
// then a terminate signal after stopGrace, then a kill after another. It
// returns once the child was reaped and its stderr drained. Safe to call twice.
func (c *child) stop() {
	_ = c.stdin.Close()
	if !c.waitFor(stopGrace) {
		c.log.Debug("agent still running after stdin closed; terminating")
		terminate(c.cmd.Process)
		if !c.waitFor(stopGrace) {
			c.log.Warn("agent did not stop; killing it")
			if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				c.log.Warn("kill agent", zap.Error(err))
			}
			<-c.exited
		}
	}
	// A grandchild may hold the stderr pipe open: give the reader a moment,
	// then close our end so it stops.
	select {
	case <-c.stderrDone:
	case <-time.After(stopGrace / 2):
		_ = c.stderr.Close()
		<-c.stderrDone
	}
	_ = c.stderr.Close()
	_ = c.stdout.Close()
	c.log.Debug("agent stopped", zap.Error(c.waitErr))
}

func (c *child) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	}
}
