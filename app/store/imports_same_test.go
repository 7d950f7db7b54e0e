package store

import "testing"

// TestSameInputComparesAsStored: a row of an update by import that differs from its record
// only as the store would not keep it (spaces around a value or an address part, the
// email's case, a phone's formatting) is the same input, so the row is unchanged; a real
// difference is not. Neither input is changed by the comparison.
func TestSameInputComparesAsStored(t *testing.T) {
	t.Parallel()
	stage := int64(3)
	stored := LeadInput{Contact: Contact{CustomerName: "Ana Lima", CompanyEmail: "ana@example.com",
		CompanyPhoneNumber: "2025550147", BillingAddress: &Address{City: "Porto", Country: "Portugal"}}, LeadStageID: &stage}
	row := LeadInput{Contact: Contact{CustomerName: "  Ana Lima ", CompanyEmail: "Ana@Example.COM",
		CompanyPhoneNumber: "(202) 555-0147", BillingAddress: &Address{City: " Porto", Country: "Portugal  "}}, LeadStageID: &stage}
	if !sameLeadInput(stored, row) {
		t.Error("a row differing only in spaces, case and phone formatting is not the same")
	}
	if row.CustomerName != "  Ana Lima " || row.BillingAddress.City != " Porto" {
		t.Errorf("the comparison changed the row: %+v", row)
	}
	for name, change := range map[string]func(in *LeadInput){
		"name":  func(in *LeadInput) { in.CustomerName = "Ana Lima Souza" },
		"city":  func(in *LeadInput) { in.BillingAddress.City = "Lisboa" },
		"stage": func(in *LeadInput) { other := int64(4); in.LeadStageID = &other },
		"phone": func(in *LeadInput) { in.CompanyPhoneNumber = "2025550148" },
	} {
		changed := row
		changed.Contact = row.clone()
		change(&changed)
		if sameLeadInput(stored, changed) {
			t.Errorf("a row with another %s is the same", name)
		}
	}
	client := ClientInput{Contact: Contact{CustomerName: "Bo", CompanyEmail: "BO@x.test "}}
	if !sameClientInput(ClientInput{Contact: Contact{CustomerName: "Bo", CompanyEmail: "bo@x.test"}}, client) {
		t.Error("a client row differing only in the email's case and spaces is not the same")
	}
}
