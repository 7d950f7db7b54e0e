package store

import (
	"context"
	"errors"
	"strings"

	"crm/app/validate"
)

// Contact is the block of fields every people-like record shares (leads and clients now,
// proposals, invoices and tickets later): who the customer is, how to reach them, who owns
// the record, their addresses and notes. It is embedded in the records and their inputs;
// bun and encoding/json flatten it, so its columns and JSON fields are the record's own.
type Contact struct {
	CustomerTitle      string   `bun:"customer_title,notnull" json:"customer_title"`
	CustomerName       string   `bun:"customer_name,notnull" json:"customer_name"`
	CompanyName        string   `bun:"company_name,notnull" json:"company_name"`
	CompanyEmail       string   `bun:"company_email,notnull" json:"company_email"`
	CompanyDialCode    string   `bun:"company_dial_code,notnull" json:"company_dial_code"`
	CompanyPhoneNumber string   `bun:"company_phone_number,notnull" json:"company_phone_number"`
	CompanyTypeID      *int64   `bun:"company_type_id" json:"company_type_id"`
	OwnerID            *int64   `bun:"owner_id" json:"owner_id"`
	BillingAddress     *Address `bun:"billing_address" json:"billing_address"`
	ShippingAddress    *Address `bun:"shipping_address" json:"shipping_address"`
	Notes              string   `bun:"notes,notnull" json:"notes"`
}

// AfterScanRow puts a copy of the billing address where the shipping address was stored as
// "the billing address" (address.go; bun calls it after reading each row of a record that
// embeds the block). Every read of a shipping address selects the billing address with it.
func (c *Contact) AfterScanRow(context.Context) error {
	if c.ShippingAddress != nil && c.ShippingAddress.sameAsBilling {
		if c.BillingAddress == nil {
			return errors.New("shipping address stored as the billing address, read without the billing address")
		}
		c.ShippingAddress = copyAddress(c.BillingAddress)
	}
	return nil
}

// contactTextColumns are the contact block's text fields, by their column (and field) names.
var contactTextColumns = []string{"customer_title", "customer_name", "company_name", "company_email", "company_dial_code",
	"company_phone_number", "notes"}

// clone is the block with addresses of its own.
func (c Contact) clone() Contact {
	c.BillingAddress, c.ShippingAddress = copyAddress(c.BillingAddress), copyAddress(c.ShippingAddress)
	return c
}

// searchText is the lowercased text a search term is matched against, of a lead or a client:
// names, email and the phone number with its dial code (which holds the number alone too,
// so a term of the number's digits matches it; migration 20261124900000_storage dropped
// the number's second copy from the rows written before).
func (c *Contact) searchText() string {
	return fold(strings.Join([]string{c.CustomerName, c.CompanyName, c.CompanyEmail,
		c.CompanyDialCode + c.CompanyPhoneNumber}, " "))
}

// field points at the text field, or address part ("billing_address.city"), a field name
// names; nil for another name. An address part of no address is nil, or, with create, a
// part of a new, empty address.
func (c *Contact) field(name string, create bool) *string {
	switch name {
	case "customer_title":
		return &c.CustomerTitle
	case "customer_name":
		return &c.CustomerName
	case "company_name":
		return &c.CompanyName
	case "company_email":
		return &c.CompanyEmail
	case "company_dial_code":
		return &c.CompanyDialCode
	case "company_phone_number":
		return &c.CompanyPhoneNumber
	case "notes":
		return &c.Notes
	}
	prefix, part, ok := strings.Cut(name, ".")
	if !ok {
		return nil
	}
	a := &c.BillingAddress
	if prefix == "shipping_address" {
		a = &c.ShippingAddress
	}
	if *a == nil {
		if !create {
			return nil
		}
		*a = &Address{}
	}
	return (*a).part(part)
}

// validate normalises the block (normalise) and checks it (check).
func (c *Contact) validate(mobile bool) validate.Errors {
	c.normalise()
	return c.check(mobile)
}

// normalise puts the block as the store saves it: trimmed, the email lowercased, the phone
// without its formatting, each address's parts trimmed. An update by import compares each
// row with its lead normalised only, and checks the row once, not three times
// (docs/PERFORMANCE.md, "Twenty-sixth round").
func (c *Contact) normalise() {
	for _, p := range []*string{&c.CustomerTitle, &c.CustomerName, &c.CompanyName, &c.CompanyEmail,
		&c.CompanyDialCode, &c.CompanyPhoneNumber} {
		*p = strings.TrimSpace(*p)
	}
	c.CompanyEmail = strings.ToLower(c.CompanyEmail)
	c.CompanyPhoneNumber = validate.NormalisePhone(c.CompanyPhoneNumber)
	for _, a := range [...]*Address{c.BillingAddress, c.ShippingAddress} {
		if a != nil {
			a.trim()
		}
	}
}

// check checks a normalised block: the admin's rules, or with mobile the mobile form's (a
// phone of exactly 10 digits, both addresses with flat/door number, city, state and
// country).
func (c *Contact) check(mobile bool) validate.Errors {
	errs := validate.Errors{}
	errs.Check(validate.Required(c.CustomerName), "customer_name", validate.KeyRequired)
	errs.Check(validate.Required(c.CompanyEmail), "company_email", validate.KeyRequired)
	errs.Check(validate.Email(c.CompanyEmail), "company_email", validate.KeyInvalidEmail)
	if mobile {
		errs.Check(validate.Required(c.CompanyPhoneNumber), "company_phone_number", validate.KeyRequired)
		errs.Check(validate.MobilePhone(c.CompanyPhoneNumber), "company_phone_number", validate.KeyInvalidPhone)
	} else if c.CompanyPhoneNumber != "" {
		errs.Check(validate.Phone(c.CompanyPhoneNumber), "company_phone_number", validate.KeyInvalidPhone)
	}
	if c.CompanyDialCode != "" {
		errs.Check(dialCode(c.CompanyDialCode), "company_dial_code", validate.KeyInvalid)
	}
	for _, f := range [...]struct{ name, v string }{{"customer_title", c.CustomerTitle}, {"customer_name", c.CustomerName},
		{"company_name", c.CompanyName}} {
		errs.Check(validate.NoHTML(f.v), f.name, validate.KeyHTMLNotAllowed)
		errs.Check(validate.MaxLen(f.v, maxTextLen), f.name, validate.KeyMaxLength)
	}
	errs.Check(validate.NoHTML(c.Notes), "notes", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(c.Notes, maxNotes), "notes", validate.KeyMaxLength)
	for _, p := range [...]struct {
		prefix string
		a      *Address
	}{{"billing_address", c.BillingAddress}, {"shipping_address", c.ShippingAddress}} {
		prefix, a := p.prefix, p.a
		if a == nil {
			if mobile {
				errs.Add(prefix+".flatNo", validate.KeyRequired)
			}
			continue
		}
		if mobile {
			errs.Check(validate.Required(a.FlatNo), prefix+".flatNo", validate.KeyRequired)
			errs.Check(validate.Required(a.City), prefix+".city", validate.KeyRequired)
			errs.Check(validate.Required(a.State), prefix+".state", validate.KeyRequired)
			errs.Check(validate.Required(a.Country), prefix+".country", validate.KeyRequired)
		}
		// Each part's field name is made only for a refusal: a row of an import checks twelve.
		for _, f := range [...]struct{ name, v string }{{".flatNo", a.FlatNo}, {".street", a.Street}, {".city", a.City},
			{".state", a.State}, {".zip", a.Zip}, {".country", a.Country}} {
			if !validate.NoHTML(f.v) {
				errs.Add(prefix+f.name, validate.KeyHTMLNotAllowed)
			}
			if !validate.MaxLen(f.v, maxTextLen) {
				errs.Add(prefix+f.name, validate.KeyMaxLength)
			}
		}
	}
	return errs
}
