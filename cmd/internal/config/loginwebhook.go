package config

import (
	"net/url"
	"time"
)

// LoginWebhook gets a JSON POST when a player joins and leaves (relay.LoginEvent).
type LoginWebhook struct {
	URL     string        `yaml:"url"`     // http:// or https://; empty: none
	Timeout time.Duration `yaml:"timeout"` // per post
}

func defaultLoginWebhook() LoginWebhook { return LoginWebhook{Timeout: 5 * time.Second} }

func (w LoginWebhook) validate() []error {
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
