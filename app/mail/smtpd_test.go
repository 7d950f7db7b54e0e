package mail_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/mail"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// receiver is a real SMTP server (github.com/emersion/go-smtp) on a loopback port, which
// keeps what it accepted. Its hooks make it answer like a troubled server.
type receiver struct {
	Host string
	Port int
	User string // "": no authentication asked for; else AUTH PLAIN with Pass
	Pass string

	mu sync.Mutex
	// rcpt answers RCPT TO of the n-th message tried (from 1); nil accepts.
	rcpt func(n int) error
	// data is called with the n-th message's DATA before it is read; it may close the
	// connection (dropped mid-message) or refuse.
	data  func(n int, c *smtp.Conn, r io.Reader) error
	tries int
	got   []*mail.Message
	raw   [][]byte
	auths int
}

func newReceiver(t testing.TB) *receiver {
	t.Helper()
	rv := &receiver{}
	s := smtp.NewServer(rv)
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.MaxMessageBytes = 10 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	rv.Host = host
	rv.Port, _ = strconv.Atoi(port)
	return rv
}

// Messages is what the receiver accepted so far.
func (rv *receiver) Messages() []*mail.Message {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return append([]*mail.Message(nil), rv.got...)
}

func (rv *receiver) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{rv: rv, c: c}, nil
}

type session struct {
	rv     *receiver
	c      *smtp.Conn
	authed bool
	n      int
}

func (s *session) AuthMechanisms() []string {
	if s.rv.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.rv.User || pass != s.rv.Pass {
			return errors.New("invalid credentials")
		}
		s.authed = true
		s.rv.mu.Lock()
		s.rv.auths++
		s.rv.mu.Unlock()
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.rv.User != "" && !s.authed {
		return smtp.ErrAuthRequired
	}
	s.rv.mu.Lock()
	s.rv.tries++
	s.n = s.rv.tries
	s.rv.mu.Unlock()
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if f := s.rv.rcpt; f != nil {
		return f(s.n)
	}
	return nil
}

func (s *session) Data(r io.Reader) error {
	if f := s.rv.data; f != nil {
		if err := f(s.n, s.c, r); err != nil {
			return err
		}
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	s.rv.mu.Lock()
	s.rv.got = append(s.rv.got, m)
	s.rv.raw = append(s.rv.raw, raw)
	s.rv.mu.Unlock()
	return nil
}

func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }
