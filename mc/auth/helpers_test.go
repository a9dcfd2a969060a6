package auth_test

import "io"

var ioReadFull = io.ReadFull
