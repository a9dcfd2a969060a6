package replicas

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// attackRates are this replica's last attack mode measurement, waiting for the heartbeat, and
// the other replicas' as the last heartbeat read them.
type attackRates struct {
	mu     sync.Mutex
	mine   [3]float64
	others [3]float64
	at     time.Time // when others was read
}

// AttackRates keeps mine (new connections, status pings and logins a second, as the relay's
// attack mode measured them) for the next heartbeat to publish, and answers the other live
// replicas' latest, summed: nothing once that is older than the replicas' liveness (Redis
// away), so that each replica then measures alone.
func (s *Store) AttackRates(mine [3]float64) (others [3]float64) {
	a := &s.attack
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mine = mine
	if time.Since(a.at) > s.cfg.liveFor() {
		return [3]float64{}
	}
	return a.others
}

// publishAttack writes this replica's last measurement and reads the others'.
func (s *Store) publishAttack() {
	s.attack.mu.Lock()
	mine := s.attack.mine
	s.attack.mu.Unlock()
	text := make([]string, len(mine))
	for i, v := range mine {
		text[i] = strconv.FormatFloat(v, 'f', 3, 64)
	}
	var got []string
	err := s.call("attack rates", func(ctx context.Context) (err error) {
		got, err = attackScript.Run(ctx, s.rdb, []string{s.key("attack"), s.key("replicas")},
			s.cfg.ReplicaID, s.liveMillis(), strings.Join(text, " ")).StringSlice()
		return err
	})
	if err != nil || len(got) != 3 {
		return
	}
	var others [3]float64
	for i, v := range got {
		others[i], _ = strconv.ParseFloat(v, 64)
	}
	s.attack.mu.Lock()
	defer s.attack.mu.Unlock()
	s.attack.others, s.attack.at = others, time.Now()
}
