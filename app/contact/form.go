// Package contact holds what the forms, payloads and exports of people-like records (leads,
// clients, and later proposals, invoices and tickets) share: the one mapping of the contact
// block (store.Contact) to form values and export columns, the dial codes offered, choices
// that keep a value the options lack, and the text of an optional id.
package contact

import (
	"strconv"

	"crm/views/components"
)

// DialCodes are the dial codes the forms offer. The spec reads them from the site
// setting user_dial_code_list; there are no site settings yet, so the list is fixed here
// until there are.
var DialCodes = []string{"+91", "+1", "+44", "+33", "+49", "+34", "+39", "+351", "+420", "+61"}

// KeepChoice adds the form's current value to a select when it is not among the options
// (a title renamed since, an inactive owner), so an edit does not silently change it.
func KeepChoice(choices map[string][]components.Option, name, value string) {
	if value == "" {
		return
	}
	for _, o := range choices[name] {
		if o.Value == value {
			return
		}
	}
	choices[name] = append(choices[name], components.Option{Value: value, Label: value})
}

// IDText is an optional id as form text ("" for none).
func IDText(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}
