package jsonscan

import (
	"strings"
	"testing"
)

func TestMemberAndMemberString(t *testing.T) {
	cases := []struct {
		obj, name string
		raw       string // "" = not ok
		str       string
		strOK     bool
	}{
		{`{"a":"x","b":1}`, "a", `"x"`, "x", true},
		{`{"a":"x","b":1}`, "b", `1`, "", false},
		{` { "a" : [1,{"b":"}"}] , "b" : "y\"z" } `, "b", `"y\"z"`, `y"z`, true},
		{`{"a":{"a":"inner"},"c":true}`, "c", `true`, "", false},
		{`{"a":1,"a":2}`, "a", "", "", false},       // repeated: not ok
		{`{"\u0061":1}`, "a", "", "", false},        // escaped name: not ok
		{`{"a":"\\\\"}`, "a", `"\\\\"`, `\\`, true}, // escaped backslashes before the quote
		{`{"a":-1.5e3,"z":null}`, "a", `-1.5e3`, "", false},
		{`[1]`, "a", "", "", false},
		{`{"k":"` + strings.Repeat("v", 200) + `"}`, "k", `"` + strings.Repeat("v", 200) + `"`, strings.Repeat("v", 200), true},
	}
	for _, tc := range cases {
		s, e, ok := Member([]byte(tc.obj), tc.name)
		if got := ""; ok {
			got = tc.obj[s:e]
			if got != tc.raw {
				t.Errorf("Member(%s, %q) = %s, want %s", tc.obj, tc.name, got, tc.raw)
			}
		} else if tc.raw != "" {
			t.Errorf("Member(%s, %q) not ok, want %s", tc.obj, tc.name, tc.raw)
		}
		str, strOK := MemberString([]byte(tc.obj), tc.name)
		if str != tc.str || strOK != tc.strOK {
			t.Errorf("MemberString(%s, %q) = %q %v, want %q %v", tc.obj, tc.name, str, strOK, tc.str, tc.strOK)
		}
	}
}

func TestEachMemberStopsAndOrders(t *testing.T) {
	obj := []byte(`{"x":1,"y":[2],"z":{"w":3}}`)
	var names []string
	ok := EachMember(obj, func(name []byte, s, e int) bool {
		names = append(names, string(name)+"="+string(obj[s:e]))
		return string(name) != "y"
	})
	if !ok || strings.Join(names, " ") != "x=1 y=[2]" {
		t.Fatalf("EachMember = %v %q", ok, names)
	}
	if EachMember([]byte(`{"a" 1}`), func([]byte, int, int) bool { return true }) {
		t.Fatal("a member without a colon was read")
	}
}

func TestEachElement(t *testing.T) {
	arr := []byte(` [ 1 , "a,]" , {"k":[2,3]} , [] , null ] `)
	var got []string
	if !EachElement(arr, func(s, e int) bool { got = append(got, string(arr[s:e])); return true }) {
		t.Fatal("not ok")
	}
	if want := `1|"a,]"|{"k":[2,3]}|[]|null`; strings.Join(got, "|") != want {
		t.Fatalf("elements %q, want %s", got, want)
	}
	for _, bad := range []string{`{}`, `[1,`, `"x"`, ``} {
		if EachElement([]byte(bad), func(int, int) bool { return true }) {
			t.Errorf("EachElement(%q) ok", bad)
		}
	}
}
