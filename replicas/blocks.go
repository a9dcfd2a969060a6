package replicas

import (
	"context"
	"maps"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxBlocks bounds the blocks read back from Redis, as the relay's own list bounds what it
// remembers.
const maxBlocks = 1 << 16

// blockCache is the shared block list as the last refresh read it, and this replica's blocks
// that Redis has not taken yet.
type blockCache struct {
	mu      sync.Mutex
	blocked map[netip.Addr]time.Time
	held    atomic.Int64 // len(blocked): Blocked costs one atomic load while the list is empty
	version string       // blocks:version at the last read; "" for none yet
	pending map[netip.Addr]time.Time
	mine    map[netip.Addr]time.Time // this replica's blocks, published again when Redis is back
}

func newBlockCache() blockCache {
	return blockCache{blocked: map[netip.Addr]time.Time{}, pending: map[netip.Addr]time.Time{}, mine: map[netip.Addr]time.Time{}}
}

// Block shares a block of key (an address, or an IPv6 network's first address) until until;
// the next refresh publishes it, so the other replicas refuse key within two refreshes.
func (s *Store) Block(key netip.Addr, until time.Time) {
	b := &s.blocks
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.mine) >= maxBlocks {
		b.dropExpired(b.mine, time.Now())
	}
	if len(b.mine) < maxBlocks {
		b.mine[key], b.pending[key] = until, until
	}
}

// Blocked says whether key is on the shared block list at t.
func (s *Store) Blocked(key netip.Addr, t time.Time) bool {
	b := &s.blocks
	b.mu.Lock()
	defer b.mu.Unlock()
	until, ok := b.blocked[key]
	return ok && t.Before(until)
}

// HasBlocks says whether the shared block list holds any entry, in one atomic load.
func (s *Store) HasBlocks() bool { return s.blocks.held.Load() > 0 }

// ClearBlocks empties the shared block list, as the admin's DELETE /blocklist does the local
// one.
func (s *Store) ClearBlocks() error {
	s.blocks.mu.Lock()
	clear(s.blocks.pending)
	clear(s.blocks.mine)
	clear(s.blocks.blocked)
	s.blocks.held.Store(0)
	s.blocks.mu.Unlock()
	return s.call("clear blocks", func(ctx context.Context) error {
		_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, s.key("blocks"))
			p.Incr(ctx, s.key("blocks", "version"))
			return nil
		})
		return err
	})
}

// refreshBlocks publishes the blocks made here since the last refresh, then reads the list
// again when its version changed.
func (s *Store) refreshBlocks() {
	if s.publishBlocks() != nil {
		return
	}
	var version string
	err := s.call("read blocks", func(ctx context.Context) (err error) {
		version, err = s.rdb.Get(ctx, s.key("blocks", "version")).Result()
		if err == redis.Nil {
			version, err = "0", nil
		}
		return err
	})
	if err != nil || version == s.blockVersion() {
		return
	}
	s.readBlocks(version)
}

func (s *Store) blockVersion() string {
	s.blocks.mu.Lock()
	defer s.blocks.mu.Unlock()
	return s.blocks.version
}

// publishBlocks writes the pending blocks (an end is only ever moved later) and raises the
// version; what fails stays pending.
func (s *Store) publishBlocks() error {
	s.blocks.mu.Lock()
	pending := maps.Clone(s.blocks.pending)
	clear(s.blocks.pending)
	s.blocks.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	err := s.call("publish blocks", func(ctx context.Context) error {
		_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for key, until := range pending {
				p.ZAddGT(ctx, s.key("blocks"), redis.Z{Score: float64(until.UnixMilli()), Member: key.String()})
			}
			p.ZRemRangeByScore(ctx, s.key("blocks"), "-inf", strconv.FormatInt(time.Now().UnixMilli(), 10))
			p.Incr(ctx, s.key("blocks", "version"))
			return nil
		})
		return err
	})
	if err != nil {
		s.blocks.mu.Lock()
		for key, until := range pending {
			s.blocks.pending[key] = later(until, s.blocks.pending[key])
		}
		s.blocks.mu.Unlock()
	}
	return err
}

// readBlocks reads the blocks that have not ended (at most maxBlocks) and makes them the cache.
// A member that is not an address is left out: Redis is not trusted to hold only what a
// replica wrote.
func (s *Store) readBlocks(version string) {
	var entries []redis.Z
	err := s.call("read blocks", func(ctx context.Context) (err error) {
		entries, err = s.rdb.ZRangeByScoreWithScores(ctx, s.key("blocks"), &redis.ZRangeBy{
			Min: strconv.FormatInt(time.Now().UnixMilli(), 10), Max: "+inf", Count: maxBlocks,
		}).Result()
		return err
	})
	if err != nil {
		return
	}
	blocked := make(map[netip.Addr]time.Time, len(entries))
	for _, e := range entries {
		member, _ := e.Member.(string)
		if key, err := netip.ParseAddr(member); err == nil {
			blocked[key] = time.UnixMilli(int64(e.Score))
		}
	}
	s.blocks.mu.Lock()
	defer s.blocks.mu.Unlock()
	s.blocks.blocked, s.blocks.version = blocked, version
	s.blocks.held.Store(int64(len(blocked)))
}

// republish makes this replica's blocks that have not ended pending again, for a Redis that
// came back (perhaps empty, after a restart), and forgets the version read so that the next
// refresh reads the list.
func (b *blockCache) republish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropExpired(b.mine, time.Now())
	maps.Copy(b.pending, b.mine)
	b.version = ""
}

// dropExpired deletes the blocks of m that have ended at t; b.mu is held.
func (b *blockCache) dropExpired(m map[netip.Addr]time.Time, t time.Time) {
	for key, until := range m {
		if !t.Before(until) {
			delete(m, key)
		}
	}
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
