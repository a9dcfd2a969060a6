package replicas

import "context"

// countEgress marks this replica live on its egress address and, when the number of live
// replicas there has changed, tells the meter. While Redis is away the meter keeps the share it
// had: going back to the whole budget on every replica at once is what gets the egress address
// 429s.
func (s *Store) countEgress() {
	var n int64
	err := s.call("egress", func(ctx context.Context) (err error) {
		n, err = egressScript.Run(ctx, s.rdb, []string{s.key("egress", s.cfg.Egress)}, s.cfg.ReplicaID, s.liveMillis()).Int64()
		return err
	})
	if err != nil || n < 1 || int(n) == s.shared {
		return
	}
	s.shared = int(n)
	s.log.Info().Str("egress", s.cfg.Egress).Int64("replicas", n).
		Msg("the login meter's budget is shared by the replicas on this egress address")
	s.share(int(n))
}
