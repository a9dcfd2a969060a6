package flood

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// metricPrefix is the namespace of the proxy's own metrics.
const metricPrefix = "moonbridge_"

// Counters are the counter series of one scrape, keyed by name{labels} as exposed.
type Counters map[string]float64

// Change is one counter series that moved during a step.
type Change struct {
	Series string  `json:"series"` // name{labels} as the proxy exposes it
	Delta  float64 `json:"delta"`
}

// scrapeTimeout bounds one scrape: a proxy too busy to answer its admin port is a finding.
const scrapeTimeout = 5 * time.Second

// Scrape reads the counters of the Prometheus text exposition at url.
func Scrape(ctx context.Context, url string) (Counters, error) {
	var out Counters
	err := scrapeWith(ctx, url, func(r io.Reader) (err error) {
		out, err = ParseCounters(r)
		return err
	})
	return out, err
}

// ScrapeValue reads the value of one series (name{labels} as exposed) at url, a gauge say.
func ScrapeValue(ctx context.Context, url, series string) (float64, error) {
	var v float64
	err := scrapeWith(ctx, url, func(r io.Reader) (err error) {
		v, err = ParseValue(r, series)
		return err
	})
	return v, err
}

// ParseValue finds series in a Prometheus text exposition.
func ParseValue(r io.Reader, series string) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if s, value, ok := cutValue(sc.Text()); ok && s == series {
			return strconv.ParseFloat(value, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("flood: no series %s in the metrics", series)
}

// scrapeWith gets url and hands its body to parse.
func scrapeWith(ctx context.Context, url string, parse func(io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("flood: scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("flood: scrape %s: %s", url, resp.Status)
	}
	return parse(resp.Body)
}

// ParseCounters keeps the moonbridge_* series whose # TYPE says counter.
func ParseCounters(r io.Reader) (Counters, error) {
	out := Counters{}
	counters := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			counters[f[2]] = f[3] == "counter"
			continue
		}
		if line == "" || line[0] == '#' || !strings.HasPrefix(line, metricPrefix) {
			continue
		}
		series, value, ok := cutValue(line)
		name, _, _ := strings.Cut(series, "{")
		if !ok || !counters[name] {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("flood: metrics line %q: %w", line, err)
		}
		out[series] = v
	}
	return out, sc.Err()
}

// cutValue splits "series value" at the last space (label values may hold spaces).
func cutValue(line string) (series, value string, ok bool) {
	i := strings.LastIndexByte(line, ' ')
	if i < 0 {
		return "", "", false
	}
	return line[:i], line[i+1:], true
}

// Changes are the series of after that differ from before (a new series counts from 0),
// sorted by name.
func Changes(before, after Counters) []Change {
	var out []Change
	for s, v := range after {
		if d := v - before[s]; d != 0 {
			out = append(out, Change{Series: s, Delta: d})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Series, b.Series) })
	return out
}

// Refusals are the changes whose name says refused: what the defences turned away.
func Refusals(changes []Change) float64 {
	var n float64
	for _, c := range changes {
		if name, _, _ := strings.Cut(c.Series, "{"); strings.Contains(name, "refused") {
			n += c.Delta
		}
	}
	return n
}
