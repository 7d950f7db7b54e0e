package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
)

// session is a signed-in caller: a bearer token for the API, cookies for the pages.
type session struct {
	header http.Header
}

func apiLogin(base, email string) (session, error) {
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)
	res, err := http.Post(base+"/v1/api/auth/login", "application/json", strings.NewReader(body))
	if err != nil {
		return session{}, err
	}
	defer res.Body.Close()
	var env struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || res.StatusCode != 200 || env.Data.Token == "" {
		return session{}, fmt.Errorf("api login %s: %d %v", email, res.StatusCode, err)
	}
	return session{header: http.Header{"Authorization": {"Bearer " + env.Data.Token}}}, nil
}

// pageLogin signs in through the login form and returns the session cookie as a header.
func pageLogin(base, email string) (session, error) {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		return session{}, err
	}
	res.Body.Close()
	u, _ := url.Parse(base)
	var cookies []string
	for _, ck := range jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	if res.StatusCode != http.StatusSeeOther || len(cookies) == 0 {
		return session{}, fmt.Errorf("page login %s: %d", email, res.StatusCode)
	}
	return session{header: http.Header{"Cookie": {strings.Join(cookies, "; ")}, "Accept": {"text/html"}}}, nil
}

// getJSON calls the API once, outside any measurement.
func getJSON(base, path string, s session, v any) error {
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header = s.header.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("GET %s: %d %.200s", path, res.StatusCode, b)
	}
	return json.NewDecoder(res.Body).Decode(v)
}

type listAnswer struct {
	Data struct {
		Result []struct {
			ID           int64  `json:"id"`
			CustomerName string `json:"customer_name"`
			CompanyEmail string `json:"company_email"`
			LeadStageID  *int64 `json:"lead_stage_id"`
		} `json:"result"`
		Total int64   `json:"total"`
		Next  *string `json:"next"`
	} `json:"data"`
}
