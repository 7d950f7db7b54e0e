package store

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// An address is stored as a JSON array of its parts in a fixed order (flat/door number,
// street, city, state, zip, country): the keys of a JSON object, repeated in every row of a
// million leads, cost more than the parts themselves. The API, the forms, the journey and
// the exports still see the object (Address's json tags); only the column is compact. Rows
// written before migration 20261124900000_storage hold the object, and are still read.
//
// On PostgreSQL a shipping address equal to the billing address is stored as the empty
// array "[]" (migration 20261124920000_storage_shipping: a trigger writes it, whatever path
// wrote the row), and read back as a copy of the billing address (Contact.AfterScanRow).
// Value never writes "[]": an address always has its six parts.

// sameAsBilling is the column of a shipping address stored as "the billing address".
const sameAsBillingColumn = "[]"

// Value is the address as its column holds it (a nil address is NULL).
func (a *Address) Value() (driver.Value, error) {
	if a == nil {
		return nil, nil
	}
	return a.column(), nil
}

// column is the JSON text of a (not nil) address's column.
func (a *Address) column() string {
	b, _ := json.Marshal([6]string{a.FlatNo, a.Street, a.City, a.State, a.Zip, a.Country}) // strings always marshal
	return string(b)
}

// Scan reads the column: the compact array, or the object of rows written before.
func (a *Address) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*a = Address{}
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("address: cannot scan %T", src)
	}
	if string(b) == sameAsBillingColumn {
		*a = Address{sameAsBilling: true}
		return nil
	}
	if len(b) > 0 && b[0] == '{' {
		*a = Address{}
		return json.Unmarshal(b, a)
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("address: %w", err)
	}
	parts = append(parts, make([]string, max(0, 6-len(parts)))...)
	*a = Address{FlatNo: parts[0], Street: parts[1], City: parts[2], State: parts[3], Zip: parts[4], Country: parts[5]}
	return nil
}
