package config

import "github.com/moonbridge/moonbridge/relay"

// validateLandingPage checks where a redirect goes; the mode checked itself as it was read.
func validateLandingPage(p relay.LandingPage) []error {
	if p.Mode == relay.LandingRedirect {
		return []error{httpURL("landing_page.redirect", p.Redirect)}
	}
	return nil
}
