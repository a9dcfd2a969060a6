package config

import (
	"net/url"

	"github.com/moonbridge/moonbridge/relay"
)

// validateLoginWebhook checks the URL join and leave events are posted to (relay.LoginEvent).
func validateLoginWebhook(w relay.LoginWebhook) []error {
	var errs []error
	if w.URL != "" {
		errs = append(errs, httpURL("login_webhook.url", w.URL))
	}
	if w.Timeout <= 0 {
		errs = append(errs, invalid("login_webhook.timeout", "must be a positive duration such as 5s"))
	}
	return errs
}

// httpURL checks an http:// or https:// URL with a host.
func httpURL(key, raw string) error {
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid(key, "%q is not an http:// or https:// URL", raw)
	}
	return nil
}
