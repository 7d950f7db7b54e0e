package contact

import (
	"reflect"
	"testing"

	"crm/app/store"
	"crm/app/validate"
)

// A contact block survives a trip through the form's values, and an export record has a
// cell for every column.
func TestMappingRoundTrip(t *testing.T) {
	typ, owner := int64(3), int64(7)
	c := store.Contact{CustomerTitle: "Dr.", CustomerName: "Ada", CompanyName: "Ada Co", CompanyEmail: "ada@x.test",
		CompanyDialCode: "+91", CompanyPhoneNumber: "9876543210", CompanyTypeID: &typ, OwnerID: &owner,
		BillingAddress: &store.Address{FlatNo: "1", Street: "Main", City: "Pune", State: "MH", Zip: "411001", Country: "India"},
		Notes:          "n"}
	errs := validate.Errors{}
	if got := FromForm(FormValues(c), errs); !reflect.DeepEqual(got, c) || len(errs) > 0 {
		t.Fatalf("round trip: got %+v (errors %v), want %+v", got, errs, c)
	}
	bad := FormValues(c)
	bad["owner_id"], bad["company_type_id"] = "x", "-1"
	if got := FromForm(bad, errs); got.OwnerID != nil || got.CompanyTypeID != nil ||
		errs["owner_id"] != validate.KeyInvalid || errs["company_type_id"] != validate.KeyInvalid {
		t.Fatalf("bad ids: got %+v, errors %v", got, errs)
	}
	cols := ExportColumns("owner_id", "created_at")
	rec := ExportRecord(42, &c, "Owner", "2026-01-01")
	if len(rec) != 1+len(cols) {
		t.Fatalf("record has %d cells for %d columns (and the id)", len(rec), len(cols))
	}
	for i, want := range map[string]string{"customer_title": "Dr.", "company_phone_number": "9876543210", "owner_id": "Owner",
		"billing_address.city": "Pune", "shipping_address.city": "", "notes": "n"} {
		if j := indexOf(cols, i); j < 0 || rec[1+j] != want {
			t.Errorf("column %s: index %d, record %v", i, j, rec)
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
