package relay

import "time"

// Defence is the config file's defence section: what the relay does about connections that
// are not players. Its yaml tags are the keys.
type Defence struct {
	Block      Block      `yaml:"block"`
	AttackMode AttackMode `yaml:"attack_mode"`
}

// DefaultDefence is what a server owner gets: the block list and the attack mode on, at their
// defaults.
func DefaultDefence() Defence { return Defence{Block: DefaultBlock(), AttackMode: DefaultAttackMode()} }

// Block configures the block list (blocklist.go): an address whose connections start with
// garbage or a malformed Minecraft hello After times within Window, or are refused by its
// per-address rate rateRefusalsPerStrike x After times within it, is refused at accept for
// For. After 0 turns the list off (the zero Block); a zero Window, For or MaxAddresses is
// the default's.
type Block struct {
	After  int           `yaml:"after"`
	Window time.Duration `yaml:"window"`
	For    time.Duration `yaml:"for"`
	// MaxAddresses bounds the addresses the list remembers, blocked and struck alike, and
	// apart from them the addresses whose refusals by the rate it counts.
	MaxAddresses int `yaml:"max_addresses"`
}

// DefaultBlock is what a server owner gets without configuring anything: a player whose
// client once sent a bad packet is far from 5 in 10 s, a scanner or a flood is not.
func DefaultBlock() Block {
	return Block{After: 5, Window: 10 * time.Second, For: time.Minute, MaxAddresses: 10000}
}

// withDefaults fills in a zero Window, For and MaxAddresses; After stays as it is.
func (b Block) withDefaults() Block {
	d := DefaultBlock()
	return Block{
		After:        b.After,
		Window:       positiveOr(b.Window, d.Window),
		For:          positiveOr(b.For, d.For),
		MaxAddresses: positiveOr(b.MaxAddresses, d.MaxAddresses),
	}
}
