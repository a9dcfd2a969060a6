package config

import "github.com/moonbridge/moonbridge/internal/bytesize"

// ByteSize is a size in bytes written as a number or with a binary unit: 65536, 64KiB, 16MiB.
// It is bytesize.Size, which sections of the packages' own types use too (relay.Listener).
type ByteSize = bytesize.Size
