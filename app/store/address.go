package store

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"
)

// An address is stored as its six parts in a fixed order (flat/door number, street, city,
// state, zip, country), each after a unit separator (U+001F): "\x1f12B\x1fMG Road\x1f…",
// 40 bytes for a typical address where a JSON object took 131 and a JSON array 75. A part
// that holds a unit separator itself makes the address a JSON array of its parts instead.
// The API, the forms, the journey and the exports still see the object (Address's json
// tags); only the column is compact. Rows written before hold a JSON array (migration
// 20261124900000_storage) or object (before it) and are still read; on PostgreSQL
// migration 20261124920000_storage_shipping rewrote them all.
//
// On PostgreSQL a shipping address equal to the billing address is stored as "[]" (a
// trigger of that migration writes it, whatever path wrote the row), and read back as a
// copy of the billing address (Contact.AfterScanRow). Value never writes "[]".

// sameAsBillingColumn is the column of a shipping address stored as "the billing address".
const sameAsBillingColumn = "[]"

// addressSep starts each part of an address's column.
const addressSep = "\x1f"

// Value is the address as its column holds it (a nil address is NULL).
func (a *Address) Value() (driver.Value, error) {
	if a == nil {
		return nil, nil
	}
	return a.column(), nil
}

// parts are the address's parts in their stored order.
func (a *Address) parts() [6]string {
	return [6]string{a.FlatNo, a.Street, a.City, a.State, a.Zip, a.Country}
}

// column is the text of a (not nil) address's column.
func (a *Address) column() string {
	p := a.parts()
	var b strings.Builder
	for _, s := range p {
		if strings.Contains(s, addressSep) {
			js, _ := json.Marshal(p) // strings always marshal
			return string(js)
		}
		b.WriteString(addressSep)
		b.WriteString(s)
	}
	return b.String()
}

// Scan reads the column: the separated parts, "[]" (the billing address, for a shipping
// address), or the JSON array or object of rows written before.
func (a *Address) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*a = Address{}
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("address: cannot scan %T", src)
	}
	switch {
	case s == sameAsBillingColumn:
		*a = Address{sameAsBilling: true}
		return nil
	case strings.HasPrefix(s, addressSep):
		return a.scanParts(s)
	case strings.HasPrefix(s, "{"):
		*a = Address{}
		return json.Unmarshal([]byte(s), a)
	default:
		return a.scanArray(s)
	}
}

// scanArray reads a JSON array of the parts, of rows written before. (Its slice of parts,
// declared in Scan, was on the heap for every address read.)
func (a *Address) scanArray(s string) error {
	var parts []string
	if err := json.Unmarshal([]byte(s), &parts); err != nil {
		return fmt.Errorf("address: %w", err)
	}
	parts = append(parts, make([]string, max(0, 6-len(parts)))...)
	*a = Address{FlatNo: parts[0], Street: parts[1], City: parts[2], State: parts[3], Zip: parts[4], Country: parts[5]}
	return nil
}

// scanParts reads the separated parts into a, without a slice of them: every address of
// every lead a page or a view shows goes through here.
func (a *Address) scanParts(s string) error {
	var p [6]string
	rest := s[len(addressSep):]
	ok := true
	for i := range len(p) - 1 {
		if p[i], rest, ok = strings.Cut(rest, addressSep); !ok {
			break
		}
	}
	if !ok || strings.Contains(rest, addressSep) {
		return fmt.Errorf("address: %d parts", strings.Count(s, addressSep))
	}
	p[5] = rest
	*a = Address{FlatNo: p[0], Street: p[1], City: p[2], State: p[3], Zip: p[4], Country: p[5]}
	return nil
}
