package store

import "reflect"

// stampSlice sets the tenant on every element of a *[]T or *[]*T of tenant-owned models.
func stampSlice(model any, tenantID int64) {
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Slice {
		panic("store: Insert needs a tenant-owned model or a pointer to a slice of them")
	}
	s := v.Elem()
	for i := 0; i < s.Len(); i++ {
		e := s.Index(i)
		if e.Kind() != reflect.Pointer {
			e = e.Addr()
		}
		owned, ok := e.Interface().(tenantOwned)
		if !ok {
			panic("store: Insert of a model that is not tenant-owned")
		}
		owned.setTenant(tenantID)
	}
}
