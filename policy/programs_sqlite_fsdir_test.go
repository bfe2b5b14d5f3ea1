package policy

import "testing"

// sqliteFsdirForms: red team 17b's class, sqlite3's fsdir(DIR) reading
// every file under DIR, in every place sqlite3 reads SQL.
func sqliteFsdirForms(dir string) []string {
	var out []string
	for _, sql := range []string{
		"select data from fsdir('" + dir + "')",
		"select name,data from fsdir('" + dir + "') where name like '%env'",
		"select * from fsdir('" + dir + "')",
		"SELECT DATA FROM FSDIR ( '" + dir + "' )",
		"select 1; select data from fsdir('" + dir + "', '.')",
	} {
		q := shellQuote(sql, false)
		out = append(out, "sqlite3 x.db "+q, "sqlite3 -readonly x.db "+q, "sqlite3 -cmd "+q+" x.db",
			"sqlite3 x.db <<< "+q, "sqlite3 :memory: "+q)
	}
	return out
}

// TestSQLiteFsdirTreeReadHoldsReadDeny: fsdir over a directory holding
// what a Read deny rule names is denied in every mode (the file is read if
// it exists); a directory beside it is allowed (the control that the
// property can fail), and so is readfile() of an ordinary file.
func TestSQLiteFsdirTreeReadHoldsReadDeny(t *testing.T) {
	modes := []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass}
	for _, tc := range []struct {
		dir, deny string
		want      Decision
	}{
		{".", "Read(./.env)", Deny},
		{"/w/proj", "Read(./.env)", Deny},
		{"./", "Read(./.env)", Deny},
		{"/w", "Read(./.env)", Deny},
		{"/w/proj/conf", "Read(./conf/**)", Deny},
		{".", "Read(**/.env)", Ask}, // any .env anywhere: asked, as grep -r . is
		{"src", "Read(./.env)", Allow},
		{"/w/proj/src", "Read(./conf/**)", Allow},
		{"src", "Read(**/.env)", Ask}, // src may hold a .env: asked, as grep -r src is
	} {
		for _, cmd := range sqliteFsdirForms(tc.dir) {
			for _, m := range modes {
				if tc.want == Allow && m != ModeDefault && m != ModeBypass {
					continue
				}
				v := decideWith(t, cmd, []string{"Bash(sqlite3 *)"}, []string{tc.deny}, m)
				if v.Decision != tc.want && !(tc.want == Ask && v.Decision == Deny) {
					t.Errorf("%q deny %s in %s: %s (%s), want %s", cmd, tc.deny, m, v.Decision, v.Reason, tc.want)
				}
			}
		}
	}
	for _, cmd := range []string{"sqlite3 x.db \"select readfile('src/a.txt')\"", "sqlite3 x.db 'select 1'"} {
		if v := decideWith(t, cmd, []string{"Bash(sqlite3 *)"}, []string{"Read(./.env)"}, ModeDefault); v.Decision != Allow {
			t.Errorf("control %q: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
}

// decideWith evaluates cmd as Bash under allow and deny rules in mode.
func decideWith(t *testing.T, cmd string, allow, deny []string, mode Mode) Verdict {
	t.Helper()
	var rules []RuleText
	for _, r := range allow {
		rules = append(rules, RuleText{List: "allow", Text: r})
	}
	for _, r := range deny {
		rules = append(rules, RuleText{List: "deny", Text: r})
	}
	pol, errs := Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: rt16bEnv, Policy: pol})
}
