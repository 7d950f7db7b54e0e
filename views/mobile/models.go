package mobile

import "strings"

// Page is the view model of the mobile lead manager's pages.
type Page struct {
	Lang  string
	Title string
	CSS   string
	JS    string // the app's bundle, preloaded
	Boot  string // the script that runs the bundle once the page has painted
	// Preload are the calls the screen makes first (messages, configuration, the list's
	// first page): fetched with the bundle, not after it, so the screen paints sooner.
	Preload []string
	// List, when set, is the lead list screen rendered by the server, so its first page
	// paints before the script has loaded (the island then renders the same markup).
	List *List
}

// Props are what the mobile island reads from its mount point. Translated strings are
// not here: the island loads the message file of Lang, or, when the server rendered the
// list, reads them from the data block named FirstPage.
type Props struct {
	Lang       string `json:"lang"`
	Locale     string `json:"locale"`
	LocalesURL string `json:"localesUrl"`
	ConfigURL  string `json:"configUrl"`
	SWURL      string `json:"swUrl"`
	Scope      string `json:"scope"`
	// FirstPage is the id of the <script type="application/json"> block holding the
	// list's first page and the messages ("" when the server rendered no list).
	FirstPage string `json:"firstPage,omitempty"`
}

// FirstPageID is the id of the data block of the server-rendered list.
const FirstPageID = "m-first-page"

// Messages are the mobile app's messages of one language (locales/mobile/<lang>.json).
type Messages map[string]string

// T translates a key as the island's t does: {name} placeholders take vars' values (given
// as name, value pairs); a missing key shows itself.
func (m Messages) T(key string, vars ...string) string {
	msg, ok := m[key]
	if !ok {
		msg = key
	}
	for i := 0; i+1 < len(vars); i += 2 {
		msg = strings.ReplaceAll(msg, "{"+vars[i]+"}", vars[i+1])
	}
	return msg
}

// List is the lead list screen as its first render shows it: no search, sort or filter,
// the first page of the caller's leads.
type List struct {
	Msg   Messages
	Won   int64
	Lost  int64
	Cards []Card
	// Data is what the island reads from the data block: the same first page as the list
	// call answers, and the messages.
	Data any
}

// Card is one lead of the list, as islands/mobile/LeadCard.tsx shows a lead on the server.
type Card struct {
	ID       int64
	ClientID string
	Status   string
	Company  string
	Customer string
	Phone    string // dial code and number
	Email    string
	Stage    string
	Source   string
	Creator  string
}
