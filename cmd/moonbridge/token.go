package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
)

// tokenCommands are the subcommands of `moonbridge token`.
func tokenCommands() []command {
	return []command{
		{"keygen", "make a signing key pair: FILE.key (private, 0600) and FILE.pub (for the server)", "--out FILE [flags]", runTokenKeygen},
		{"issue", "print a token for a player or group, signed with a private key", "--key FILE.key --subject NAME [flags]", runTokenIssue},
		{"verify", "check a token against public keys as the server would, and print what it says", "--keys FILE.pub[,FILE.pub] [flags] [TOKEN]", runTokenVerify},
	}
}

const tokenSummary = "Make signing keys and access tokens for routes with access.tokens: required or optional (docs/access.md)."

func runToken(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token", "keygen|issue|verify [flags]", tokenSummary+"\n\nSubcommands:\n"+tokenCommandList(), stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.UsageError()
	}
	for _, c := range tokenCommands() {
		if c.name == fs.Arg(0) {
			return c.run(fs.Args()[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "moonbridge token: unknown subcommand %q\n", fs.Arg(0))
	return fs.UsageError()
}

func tokenCommandList() string {
	var b strings.Builder
	for _, c := range tokenCommands() {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func runTokenKeygen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token keygen", "--out FILE [flags]", "Make a signing key pair: FILE.key, the private key that issues tokens (written 0600; keep it off the server), and FILE.pub, the public key the server's access.keys lists. Neither file is overwritten.", stdout, stderr)
	out := fs.String("out", "", "write `FILE`.key and FILE.pub (required)")
	id := fs.String("id", "", "key `id` that tokens name (default FILE's base name)")
	algName := fs.String("alg", "ed25519", "`algorithm`: ed25519 (small tokens), ml-dsa-65 (post-quantum, 4.5 KB tokens) or ed25519+ml-dsa-65 (both must verify)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 0 {
		return fs.UsageError()
	}
	alg, err := access.ParseAlgorithm(*algName)
	if err != nil {
		return err
	}
	if *id == "" {
		*id = filepath.Base(*out)
	}
	key, err := access.GenerateKey(alg, *id)
	if err != nil {
		return err
	}
	if err := access.WriteKeyPair(*out, key); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s key %q: private key %s.key, public key %s.pub\n", alg, key.ID, *out, *out)
	return nil
}

func runTokenIssue(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token issue", "--key FILE.key --subject NAME [flags]", "Print a token for the player or group NAME, signed with the private key FILE.key. The player passes it to `moonbridge client --token-file` (or --token).", stdout, stderr)
	keyFile := fs.String("key", "", "private key `FILE` from token keygen (required)")
	subject := fs.String("subject", "", "the player or group the token is for, `NAME` in the server's log (required)")
	audience := fs.String("audience", "", "the server's access.audience `name`, if it sets one")
	ttl := fs.Duration("ttl", 30*24*time.Hour, "how long the token is valid from --not-before (`duration`)")
	notBefore := fs.String("not-before", "", "RFC 3339 `time` the token becomes valid (default now)")
	var scopes listFlag
	fs.Var(&scopes, "scope", "a route `name` or host the token opens; repeatable (default every route)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *keyFile == "" || *subject == "" || fs.NArg() != 0 {
		return fs.UsageError()
	}
	key, err := access.ReadPrivateKeyFile(*keyFile)
	if err != nil {
		return err
	}
	now := time.Now()
	start := now
	if *notBefore != "" {
		if start, err = time.Parse(time.RFC3339, *notBefore); err != nil {
			return fmt.Errorf("--not-before: %w", err)
		}
	}
	token, err := access.Issue(key, access.Claims{
		Subject: *subject, Audience: *audience, Scopes: scopes,
		IssuedAt: now, NotBefore: start, Expires: start.Add(*ttl),
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, token)
	return nil
}

func runTokenVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token verify", "--keys FILE.pub[,FILE.pub] [flags] [TOKEN]", "Check TOKEN (or the one in --token-file) as the server would and print its claims; exit status 1 and the reason if it is refused.", stdout, stderr)
	var keys listFlag
	fs.Var(&keys, "keys", "public key `files`, comma-separated or repeated (required)")
	tokenFile := fs.String("token-file", "", "read the token from `FILE` instead of the command line")
	audience := fs.String("audience", "", "the audience to expect, as the server's access.audience")
	leeway := fs.Duration("leeway", time.Minute, "allowed clock difference (`duration`), as access.leeway")
	if err := fs.Parse(args); err != nil {
		return err
	}
	token, err := tokenOperand(fs, *tokenFile)
	if errors.Is(err, cliflags.ErrUsage) || len(keys) == 0 {
		return fs.UsageError()
	}
	if err != nil {
		return err
	}
	pubs, err := access.ReadPublicKeyFiles(keys)
	if err != nil {
		return err
	}
	v, err := access.NewVerifier(access.VerifierConfig{Keys: pubs, Audience: *audience, Leeway: *leeway})
	if err != nil {
		return err
	}
	c, err := v.Verify(token)
	if err != nil {
		return err
	}
	printClaims(stdout, c)
	return nil
}

// tokenOperand is the token given on the command line or, with --token-file, in a file.
func tokenOperand(fs *cliflags.FlagSet, file string) (string, error) {
	switch {
	case file != "" && fs.NArg() == 0:
		return access.ReadTokenFile(file)
	case file == "" && fs.NArg() == 1:
		return strings.TrimSpace(fs.Arg(0)), nil
	}
	return "", cliflags.ErrUsage
}

func printClaims(w io.Writer, c access.Claims) {
	fmt.Fprintf(w, "valid\nsubject:    %s\nkey id:     %s\nalgorithm:  %s\n", c.Subject, c.KeyID, c.Algorithm)
	fmt.Fprintf(w, "audience:   %q\nissued at:  %s\nnot before: %s\nexpires:    %s\n", c.Audience,
		c.IssuedAt.UTC().Format(time.RFC3339), c.NotBefore.UTC().Format(time.RFC3339), c.Expires.UTC().Format(time.RFC3339))
	scopes := "every route"
	if len(c.Scopes) > 0 {
		scopes = strings.Join(c.Scopes, ", ")
	}
	fmt.Fprintf(w, "opens:      %s\n", scopes)
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

var _ flag.Value = (*listFlag)(nil)
