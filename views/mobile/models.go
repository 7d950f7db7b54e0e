package mobile

// Page is the view model of the mobile lead manager's pages.
type Page struct {
	Lang  string
	Title string
	CSS   string
	JS    string
	// Preload are the calls the screen makes first (messages, configuration, the list's
	// first page): fetched with the bundle, not after it, so the list paints sooner.
	Preload []string
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
