// Package authfake is the far ends of an online login, for tests and the benchmark (mbbench's
// online players): a fake session server on loopback that answers hasJoined for the joins it
// was told of, and the client's side of the Encryption Response.
package authfake
