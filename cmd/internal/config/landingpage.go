package config

// LandingPage is what a browser gets from a ws or wss listener for a request that is not a
// WebSocket upgrade: a page with the server's name, MOTD, players and how to join, a redirect,
// or nothing (off: 404 off the WebSocket path, 426 on it).
type LandingPage struct {
	Mode     string `yaml:"mode"`     // page, redirect, off
	Redirect string `yaml:"redirect"` // where redirect sends the browser
	Name     string `yaml:"name"`     // the server's name on the page; empty: the host asked for
	Address  string `yaml:"address"`  // the address players join; empty: the host asked for
}

// Landing page modes.
const (
	LandingPageMode = "page"
	LandingRedirect = "redirect"
	LandingOff      = "off"
)

func defaultLandingPage() LandingPage { return LandingPage{Mode: LandingPageMode} }

func (p LandingPage) validate() []error {
	errs := []error{oneOf("landing_page.mode", p.Mode, LandingPageMode, LandingRedirect, LandingOff)}
	if p.Mode == LandingRedirect {
		errs = append(errs, httpURL("landing_page.redirect", p.Redirect))
	}
	return errs
}
