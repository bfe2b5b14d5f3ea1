package policy

import "strings"

// Environment variables that name a file or directory a program loads
// configuration or code from, or writes to (docs/policy.md, "Environment
// that changes what runs"). Red team 16b: OPENSSL_CONF (every program
// linked with OpenSSL 3 loads the engines its config names), WGETRC (an rc
// with output_document = ~/.bashrc), PSQLRC, SSLKEYLOGFILE (curl, wget and
// python append to it), GNUPGHOME and HOSTALIASES passed as plain names.
//
// The rule is general, by the shape of the name, so a program this file
// never heard of is covered too: a name that holds CONF (CONF, CONFIG,
// CONFDIR) or ends in one of envFileSuffixes is a doubt (envDangerous),
// unless envFileHarmless lists it.

// envFileSuffixes: endings of names that say the value is a file or a
// directory a program reads configuration or code from, or writes to.
var envFileSuffixes = []string{
	"RC",            // WGETRC, PSQLRC, NETRC, SCREENRC, MAILRC, CURLRC
	"FILE", "FILES", // SSLKEYLOGFILE, HISTFILE, PGPASSFILE, AWS_CONFIG_FILE
	"HOME",        // GNUPGHOME, CURL_HOME, MYSQL_HOME
	"DIR", "DIRS", // IPYTHONDIR, PGSYSCONFDIR, TERMINFO_DIRS, DESTDIR
	"MODULE", "MODULES", "ENGINE", "ENGINES", // OPENSSL_MODULES, OPENSSL_ENGINES
	"PLUGIN", "PLUGINS", "PROVIDER", "PROVIDERS", "EXTENSIONS", // plugin and provider directories
	"LIB", "LIBS", "LIBRARY", "LIBRARIES", // PERL5LIB, RUBYLIB, a library to load
	"ALIASES",                                // HOSTALIASES: names resolved to other hosts
	"HISTORY", "KEYLOG", "OUTPUT", "LOGFILE", // SQLITE_HISTORY, where a program writes
	"BUNDLE", "CREDENTIALS", "STARTUP", "PROFILE", "SCRIPT", // CA bundles, credential files, startup code
}

// envFileExact: names that name such a file without one of the endings.
var envFileExact = map[string]bool{
	"LOCALDOMAIN": true, "RES_OPTIONS": true, "KRB5CCNAME": true, "KRB5_KTNAME": true, "GCONV_PATH": true,
	"MALLOC_TRACE": true, "SSL_CERT_FILE": true, "OPENSSL_CONF": true, "OPENSSL_MODULES": true,
	"OPENSSL_ENGINES": true, "WGETRC": true, "PSQLRC": true, "GNUPGHOME": true, "HOSTALIASES": true,
	"SSLKEYLOGFILE": true, "CURL_HOME": true, "HISTFILE": true, "NETRC": true, "SSL_CERT_DIR": true,
	"AWS_CONFIG_FILE": true, "AWS_SHARED_CREDENTIALS_FILE": true, "GOOGLE_APPLICATION_CREDENTIALS": true,
	"REQUESTS_CA_BUNDLE": true, "CURL_CA_BUNDLE": true, "CLOUDSDK_CONFIG": true, "AZURE_CONFIG_DIR": true,
}

// envFileHarmless: names with such an ending that name nothing a program
// loads or writes. Keep it short: a name here is passed as a plain name.
var envFileHarmless = map[string]bool{
	"SRC": true, "AWS_PROFILE": true, "AWS_DEFAULT_PROFILE": true,
}

// envNamesConfigOrOutput: the upper-case name u names a file or directory
// a program loads configuration or code from, or writes to.
func envNamesConfigOrOutput(u string) bool {
	if envFileHarmless[u] {
		return false
	}
	if envFileExact[u] || strings.Contains(u, "CONF") {
		return true
	}
	for _, s := range envFileSuffixes {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return false
}
