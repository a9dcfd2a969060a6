package replicas

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// Counts is what the relay counts now: players per route label, and a version that grows with
// every change of them (relay.Server.RoutePlayers).
type Counts func() (perRoute map[string]int, version uint64)

// MeterShare is told how many live replicas share this one's egress address, whenever that
// changes (relay.Server.ShareLoginMeter).
type MeterShare func(replicas int)

// Store is one replica's view of the shared state. New makes it, Start runs its heartbeat and
// refreshes, Close stops them.
type Store struct {
	cfg    Settings
	rdb    *redis.Client
	log    zerolog.Logger
	health health
	counts Counts
	share  MeterShare
	shared int // the replicas share was last told of; the heartbeat's own

	players playerCache
	blocks  blockCache
	rates   rateCounts
	routes  sharedRoutes
	attack  attackRates
	seats   seatLanes

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a Store for cfg that has not talked to Redis yet.
func New(cfg Settings, log zerolog.Logger) *Store {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Store{
		cfg: cfg, log: log.With().Str("component", "replicas").Logger(),
		rdb: redis.NewClient(&redis.Options{
			Addr: cfg.Address, Username: cfg.Username, Password: cfg.Password, TLSConfig: cfg.TLS,
			DialTimeout: cfg.Timeout, ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout,
			PoolTimeout: cfg.Timeout, ContextTimeoutEnabled: true,
			// A call is tried again once, within its bound (a connection from before Redis
			// restarted fails at once); past the bound the next heartbeat or refresh tries.
			MaxRetries: 1,
		}),
		ctx: ctx, cancel: cancel,
		players: newPlayerCache(), blocks: newBlockCache(), rates: newRateCounts(), routes: sharedRoutes{version: "0"},
	}
	s.health.init(s.log, cfg.Timeout)
	quietRedisLog.Do(func() { redis.SetLogger(noRedisLog{}) })
	return s
}

// quietRedisLog drops go-redis' own log lines, once for the process (go-redis keeps one logger
// for all its clients, on the standard library's log): it writes one for each failed dial,
// many a second while Redis is away, where the Store's health says once that Redis is away,
// with the error, and counts the failures.
var quietRedisLog sync.Once

type noRedisLog struct{}

func (noRedisLog) Printf(context.Context, string, ...any) {}

// Start runs the heartbeat, which publishes counts and reads the others' and tells share how
// many replicas share the egress address, and the refreshes of blocks, rates and routes, until
// Close.
func (s *Store) Start(counts Counts, share MeterShare) {
	s.counts, s.share = counts, share
	s.every(s.cfg.Heartbeat, s.heartbeat)
	s.every(s.cfg.BlockRefresh, s.refreshBlocks)
	s.every(s.cfg.BlockRefresh, s.refreshRoutes)
	s.every(rateFlushEvery, s.flushRates)
}

// every runs f every period (and once at once) on a goroutine of its own until Close.
func (s *Store) every(period time.Duration, f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			f()
			select {
			case <-s.ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// Close stops the goroutines and closes the connections to Redis. What this replica published
// expires with its heartbeat.
func (s *Store) Close() error {
	s.cancel()
	s.wg.Wait()
	return s.rdb.Close()
}

// call runs f with the background bound and notes how it went.
func (s *Store) call(op string, f func(ctx context.Context) error) error {
	return s.callWithin(op, s.cfg.Timeout, f)
}

// callWithin runs f with a context that ends after bound, or with the Store, and notes how it
// went.
func (s *Store) callWithin(op string, bound time.Duration, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(s.ctx, bound)
	defer cancel()
	started := time.Now()
	err := f(ctx)
	if err != nil && s.ctx.Err() == nil {
		s.health.failed(started, op, err)
		return err
	}
	if err == nil && s.health.succeeded(started) {
		s.blocks.republish()
	}
	return err
}
