package bridge

// Setting is a setting of the bridge's user that a failure's summary names as the way past it.
type Setting int

const (
	SettingInsecure Setting = iota // take the server's certificate unchecked: for tests only
	SettingCA                      // trust the certificate authority in a file
)

// SettingNames says how the one who reads a summary changes s: a flag on their command line,
// or a key in the file they run from (Config.SettingNames). It returns a phrase that fits
// "TLS: ...; PHRASE for a test".
type SettingNames func(s Setting) string

// keyNames, the default, names a setting by its key in a config file's client: section.
func keyNames(s Setting) string {
	if s == SettingCA {
		return "the client setting ca"
	}
	return "the client setting insecure"
}

func (n SettingNames) orDefault() SettingNames {
	if n == nil {
		return keyNames
	}
	return n
}
