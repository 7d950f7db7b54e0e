package mobile

// Page is the view model of the mobile lead manager's pages.
type Page struct {
	Lang  string
	Title string
	CSS   string
	JS    string
}

// Props are what the mobile island reads from its mount point. Translated strings are
// not here: the island loads the message file of Lang.
type Props struct {
	Lang       string `json:"lang"`
	Locale     string `json:"locale"`
	LocalesURL string `json:"localesUrl"`
	ConfigURL  string `json:"configUrl"`
	SWURL      string `json:"swUrl"`
	Scope      string `json:"scope"`
}
