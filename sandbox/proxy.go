package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The network of NetworkLoopback and NetworkDomains: the agent runs in a
// network namespace of its own, where nothing outside is reachable; inside,
// a relay (RunInit) listens on 127.0.0.1:ProxyPort and passes each
// connection through a Unix socket to a Proxy the bridge runs outside, which
// connects only where Allow says (HTTP CONNECT for HTTPS, absolute-URI
// requests for plain HTTP). HTTP_PROXY / HTTPS_PROXY point programs at the
// relay; a program that ignores them reaches nothing. The proxy resolves
// names itself, so a name the policy allows cannot be pointed elsewhere
// from inside.

// ProxyPort is the relay's port inside the sandbox's network namespace.
const ProxyPort = 3128

// Proxy is the filtering HTTP proxy on the bridge's side.
type Proxy struct {
	// Allow says whether a connection to host:port may be made. host is as
	// the client named it (a name or an IP literal), lower case, without
	// brackets.
	Allow func(host string, port int) bool
	// Denied, if set, is told of every refused destination (for the log).
	Denied func(host string, port int)
	// Dial connects (default: a net.Dialer with a 30 s timeout).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Peer, if set, decides whether a connection's peer may use the proxy
	// (peer_linux.go: only processes of the proxy's own sandbox); a non-nil
	// error closes the connection unread.
	Peer func(c net.Conn) error
	// PeerRefused, if set, is told of the first refused peer (only the
	// first: a refused client that retries must not flood the log).
	PeerRefused func(err error)

	refusedOnce sync.Once
	mu          sync.Mutex
	ln          net.Listener
	conns       map[net.Conn]bool
	done        bool
}

// Serve accepts on ln until Close. Each connection carries one CONNECT, or
// plain HTTP requests with absolute URIs.
func (p *Proxy) Serve(ln net.Listener) error {
	p.mu.Lock()
	p.ln = ln
	if p.conns == nil {
		p.conns = map[net.Conn]bool{}
	}
	p.mu.Unlock()
	for {
		c, err := ln.Accept()
		if err != nil {
			p.mu.Lock()
			done := p.done
			p.mu.Unlock()
			if done {
				return nil
			}
			return fmt.Errorf("sandbox proxy: %w", err)
		}
		if !p.track(c, true) {
			c.Close()
			return nil
		}
		go func() {
			defer p.track(c, false)
			defer c.Close()
			if p.Peer != nil {
				if err := p.Peer(c); err != nil {
					p.refusedOnce.Do(func() {
						if p.PeerRefused != nil {
							p.PeerRefused(err)
						}
					})
					return
				}
			}
			p.handle(c)
		}()
	}
}

func (p *Proxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		if p.done {
			return false
		}
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
	return true
}

// Close stops accepting and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	for c := range p.conns {
		c.Close()
	}
	if p.ln != nil {
		return p.ln.Close()
	}
	return nil
}

func (p *Proxy) dial(ctx context.Context, addr string) (net.Conn, error) {
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", addr)
	}
	d := net.Dialer{Timeout: 30 * time.Second}
	return d.DialContext(ctx, "tcp", addr)
}

// permitted parses host:port and asks Allow. A host holding anything but
// the characters of a name or an IP literal is refused.
func (p *Proxy) permitted(hostport, defPort string) (string, bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defPort
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 || host == "" || !hostChars(host) {
		return "", false
	}
	if p.Allow == nil || !p.Allow(host, n) {
		if p.Denied != nil {
			p.Denied(host, n)
		}
		return "", false
	}
	return net.JoinHostPort(host, port), true
}

func hostChars(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':' || c == '_') {
			return false
		}
	}
	return true
}

func (p *Proxy) handle(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			if err != io.EOF {
				writeStatus(c, http.StatusBadRequest, "acp-bridge sandbox: malformed request: "+err.Error())
			}
			return
		}
		if req.Method == http.MethodConnect {
			addr, ok := p.permitted(req.Host, "443")
			if !ok {
				writeStatus(c, http.StatusForbidden, "acp-bridge sandbox: destination not allowed: "+req.Host)
				return
			}
			up, err := p.dial(req.Context(), addr)
			if err != nil {
				writeStatus(c, http.StatusBadGateway, "acp-bridge sandbox: "+err.Error())
				return
			}
			defer up.Close()
			if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
				return
			}
			pipe(c, br, up)
			return
		}
		if req.URL == nil || req.URL.Host == "" || req.URL.Scheme != "http" {
			writeStatus(c, http.StatusBadRequest, "acp-bridge sandbox: the proxy takes CONNECT or absolute http:// URLs")
			return
		}
		addr, ok := p.permitted(req.URL.Host, "80")
		if !ok {
			writeStatus(c, http.StatusForbidden, "acp-bridge sandbox: destination not allowed: "+req.URL.Host)
			return
		}
		if !p.forward(c, req, addr) {
			return
		}
	}
}

// forward sends one plain-HTTP request upstream and copies the answer back.
func (p *Proxy) forward(c net.Conn, req *http.Request, addr string) bool {
	up, err := p.dial(req.Context(), addr)
	if err != nil {
		writeStatus(c, http.StatusBadGateway, "acp-bridge sandbox: "+err.Error())
		return false
	}
	defer up.Close()
	req.RequestURI = ""
	req.Header.Del("Proxy-Connection")
	req.Header.Del("Proxy-Authorization")
	req.Close = true
	if err := req.Write(up); err != nil {
		writeStatus(c, http.StatusBadGateway, "acp-bridge sandbox: "+err.Error())
		return false
	}
	res, err := http.ReadResponse(bufio.NewReader(up), req)
	if err != nil {
		writeStatus(c, http.StatusBadGateway, "acp-bridge sandbox: "+err.Error())
		return false
	}
	defer res.Body.Close()
	res.Close = true
	_ = res.Write(c)
	return false // one request per upstream connection: the client reconnects
}

func writeStatus(c net.Conn, code int, msg string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), len(msg), msg)
}

// pipe copies both ways until either side ends. br holds what was read
// from c past the request.
func pipe(c net.Conn, br *bufio.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, br)
		closeWrite(up)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(c, up)
		closeWrite(c)
		done <- struct{}{}
	}()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	type cw interface{ CloseWrite() error }
	if x, ok := c.(cw); ok {
		_ = x.CloseWrite()
	}
}

// serveRelay passes every connection accepted on ln to the Unix socket
// sock. It returns when ctx ends or the listener fails.
func serveRelay(ctx context.Context, ln net.Listener, sock string) error {
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("sandbox relay: %w", err)
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", sock)
			if err != nil {
				return
			}
			defer up.Close()
			pipe(c, bufio.NewReader(c), up)
		}()
	}
}
