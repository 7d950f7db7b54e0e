package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// leanClient asks for pages over one kept HTTP/1.1 connection, writing each request and
// reading its answer in the caller's goroutine, as curl or wrk do. Go's http.Client hands
// each request to a goroutine that writes it and takes the answer from another that reads
// it: two hand-offs, each a thread's wake-up, that cost the client about as much as a small
// answer's SQL on a small VM (docs/PERFORMANCE.md, "Twenty-ninth round"). The comparison
// of the app with its SQL times the app through this client, so the client's own hand-offs
// are not counted as the app's.
//
// It asks for gzip, as a browser and http.Client do, and reads the bytes as they come
// without inflating them: inflating is the client's work, not the server's.
type leanClient struct {
	host string // host:port
	conn net.Conn
	br   *bufio.Reader
	buf  bytes.Buffer
}

func newLeanClient(base string) (*leanClient, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("lean client: %s is not plain http", base)
	}
	return &leanClient{host: u.Host}, nil
}

// get asks for path (with its query) with the session's headers and reads the answer to
// its last byte; anything but 200 is an error. A connection the server closes, or one an
// error leaves in doubt, is dialled again on the next call.
func (c *leanClient) get(path string, s session) error {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.host, 10*time.Second)
		if err != nil {
			return err
		}
		c.conn, c.br = conn, bufio.NewReader(conn)
	}
	c.buf.Reset()
	fmt.Fprintf(&c.buf, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept-Encoding: gzip\r\nUser-Agent: crmbench\r\n", path, c.host)
	if err := s.header.Write(&c.buf); err != nil {
		return err
	}
	c.buf.WriteString("\r\n")
	_ = c.conn.SetDeadline(time.Now().Add(30 * time.Second))
	res, err := c.roundTrip()
	if err != nil {
		c.close()
		return err
	}
	if res.Close {
		c.close()
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%d", res.StatusCode)
	}
	return nil
}

func (c *leanClient) roundTrip() (*http.Response, error) {
	if _, err := c.conn.Write(c.buf.Bytes()); err != nil {
		return nil, err
	}
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, res.Body)
	if cerr := res.Body.Close(); err == nil {
		err = cerr
	}
	return res, err
}

func (c *leanClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.br = nil, nil
	}
}
