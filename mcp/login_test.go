package mcp

import (
	"reflect"
	"testing"
)

// TestOAuthConfigCopiesEveryField: every field of oauth.Config is filled
// from the ServerConfig field of the same name, so that an OAuth setting
// added to the config file and to both structs cannot be dropped on the
// way to the login (a client secret's source, a scope, DPoP…).
func TestOAuthConfigCopiesEveryField(t *testing.T) {
	var cfg ServerConfig
	src := reflect.ValueOf(&cfg).Elem()
	out := reflect.TypeOf(oauthConfig(cfg))
	for i := range out.NumField() {
		name := out.Field(i).Name
		f := src.FieldByName(name)
		if !f.IsValid() {
			t.Fatalf("oauth.Config.%s has no ServerConfig field of that name", name)
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("v-" + name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"v-" + name}))
		default:
			t.Fatalf("ServerConfig.%s: a %s, which this test does not fill", name, f.Kind())
		}
	}
	got := reflect.ValueOf(oauthConfig(cfg))
	for i := range out.NumField() {
		name := out.Field(i).Name
		if want := src.FieldByName(name).Interface(); !reflect.DeepEqual(got.Field(i).Interface(), want) {
			t.Errorf("oauth.Config.%s = %v, want %v (ServerConfig.%s)", name, got.Field(i).Interface(), want, name)
		}
	}
}
