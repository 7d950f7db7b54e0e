package apptest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"crm/app/apptest/contract"
)

// Client is a browser-like or API client of the test server.
type Client struct {
	Env    *Env
	HTTP   *http.Client
	Token  string
	Header http.Header
}

// Client is an anonymous client with a cookie jar that does not follow redirects.
func (e *Env) Client() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{Env: e, Header: http.Header{}, HTTP: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// APIClient signs in through the JSON API and carries the bearer token.
func (e *Env) APIClient(email string) *Client {
	e.T.Helper()
	c := e.Client()
	r := c.Do("POST", "/v1/api/auth/login", map[string]string{"email": email, "password": Password})
	if r.Status != http.StatusOK {
		e.T.Fatalf("api login %s: %d %s", email, r.Status, r.Body)
	}
	c.Token = r.Env().Data["token"].(string)
	return c
}

// Browser signs in through the login form and keeps the session cookie.
func (e *Env) Browser(email string) *Client {
	e.T.Helper()
	c := e.Client()
	r := c.Form("/login", url.Values{"email": {email}, "password": {Password}})
	if r.Status != http.StatusSeeOther {
		e.T.Fatalf("login %s: %d %s", email, r.Status, r.Body)
	}
	return c
}

// Response is an answer, read whole.
type Response struct {
	T      *testing.T
	Status int
	Header http.Header
	Body   string
}

// Envelope is the decoded JSON envelope with data as a map.
type Envelope struct {
	Status  int               `json:"status"`
	Message string            `json:"message"`
	Data    map[string]any    `json:"data"`
	Errors  map[string]string `json:"errors"`
}

// Env decodes the JSON envelope, whose status must be the HTTP status.
func (r *Response) Env() Envelope {
	r.T.Helper()
	var e Envelope
	if err := json.Unmarshal([]byte(r.Body), &e); err != nil {
		r.T.Fatalf("not a JSON envelope (%d): %s", r.Status, r.Body)
	}
	if e.Status != r.Status {
		r.T.Fatalf("envelope status %d != HTTP status %d", e.Status, r.Status)
	}
	return e
}

// Do sends a request; a non-string body is sent as JSON. headers are name, value pairs.
func (c *Client) Do(method, path string, body any, headers ...string) *Response {
	c.Env.T.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ctype = strings.NewReader(b), "application/json"
	default:
		buf, _ := json.Marshal(b)
		rd, ctype = bytes.NewReader(buf), "application/json"
	}
	req, err := http.NewRequest(method, c.Env.Srv.URL+path, rd)
	if err != nil {
		c.Env.T.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.Send(req)
}

// Get sends a GET.
func (c *Client) Get(path string, headers ...string) *Response {
	c.Env.T.Helper()
	return c.Do("GET", path, nil, headers...)
}

// Htmx asks for a page the way htmx does, swapping target.
func (c *Client) Htmx(path, target string) *Response {
	c.Env.T.Helper()
	return c.Get(path, "HX-Request", "true", "HX-Target", target)
}

// Form posts a URL-encoded form like a browser.
func (c *Client) Form(path string, v url.Values, headers ...string) *Response {
	c.Env.T.Helper()
	req, err := http.NewRequest("POST", c.Env.Srv.URL+path, strings.NewReader(v.Encode()))
	if err != nil {
		c.Env.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.Send(req)
}

// Upload is a file of a multipart form.
type Upload struct {
	Field string // "files" when empty
	Name  string
	Data  []byte
}

// Multipart posts a multipart form of fields and files, like a browser form with file inputs.
func (c *Client) Multipart(path string, fields url.Values, files ...Upload) *Response {
	c.Env.T.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, vals := range fields {
		for _, s := range vals {
			_ = mw.WriteField(k, s)
		}
	}
	for _, f := range files {
		field := f.Field
		if field == "" {
			field = "files"
		}
		fw, err := mw.CreateFormFile(field, f.Name)
		if err != nil {
			c.Env.T.Fatal(err)
		}
		_, _ = fw.Write(f.Data)
	}
	_ = mw.Close()
	req, err := http.NewRequest("POST", c.Env.Srv.URL+path, &buf)
	if err != nil {
		c.Env.T.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Send(req)
}

// MultipartFile posts fields and one file under field.
func (c *Client) MultipartFile(path string, fields url.Values, field, filename string, data []byte) *Response {
	c.Env.T.Helper()
	return c.Multipart(path, fields, Upload{Field: field, Name: filename, Data: data})
}

// UploadFiles posts files (field "files") with an optional tag.
func (c *Client) UploadFiles(path, tag string, files ...Upload) *Response {
	c.Env.T.Helper()
	fields := url.Values{}
	if tag != "" {
		fields.Set("tag", tag)
	}
	return c.Multipart(path, fields, files...)
}

// Send sends req with the client's token, reads the answer whole, and checks every
// /v1/api answer against docs/openapi.yaml (contract.CheckAPIResponse).
func (c *Client) Send(req *http.Request) *Response {
	c.Env.T.Helper()
	if c.Token != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.Env.T.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if err := contract.CheckAPIResponse(req, res, b); err != nil {
		c.Env.T.Errorf("%s %s answered %d, which docs/openapi.yaml does not allow:\n%v",
			req.Method, req.URL.RequestURI(), res.StatusCode, err)
	}
	return &Response{T: c.Env.T, Status: res.StatusCode, Header: res.Header, Body: string(b)}
}
