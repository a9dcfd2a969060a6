// Package cluster runs a real Kubernetes control plane's API on loopback for tests: etcd and
// kube-apiserver, built by scripts/kube-binaries.sh, with a self-signed serving certificate
// made at start, static bearer tokens for authentication and RBAC for authorization. No
// controller runs (no kube-controller-manager, no kubelet): objects are stored and served,
// nothing acts on them, so a test writes the EndpointSlices a controller would.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/internal/freeport"
)

// User is a static token's identity: RBAC grants to Name (a user) or to a Group.
type User struct {
	Token  string
	Name   string
	Groups []string
}

// ServiceAccount is the identity a pod of that account has, for a static token: RBAC binds
// subjects of kind ServiceAccount to this user name and these groups.
func ServiceAccount(token, namespace, name string) User {
	return User{Token: token, Name: "system:serviceaccount:" + namespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace}}
}

// Options say where the binaries are, where the cluster keeps its files and who may call it.
type Options struct {
	BinDir string // kube-apiserver and etcd: the folder scripts/kube-binaries.sh prints
	Dir    string // the cluster's files: certificates, tokens, etcd's data, the logs
	Users  []User // besides the cluster's own admin (AdminToken), in group system:masters
	// APIServerFlags go after the cluster's own flags (a later flag wins).
	APIServerFlags []string
}

// Cluster is a running etcd and kube-apiserver.
type Cluster struct {
	URL        string // https://127.0.0.1:PORT
	CAFile     string // the serving certificate, for a client's trust
	AdminToken string // a user in system:masters: allowed everything
	EtcdURL    string

	opts      Options
	apiAddr   string
	etcd      *process
	apiserver *process
}

// startBound is how long etcd and then the API server have to become ready: minutes, since a
// loaded 2-core machine starts kube-apiserver's many hooks slowly.
const startBound = 3 * time.Minute

// Start starts etcd, then kube-apiserver, and returns once the API server's /readyz passes.
func Start(ctx context.Context, opts Options) (c *Cluster, err error) {
	c = &Cluster{opts: opts, CAFile: filepath.Join(opts.Dir, servingCert)}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if c.AdminToken, err = randomToken(); err != nil {
		return nil, err
	}
	if err = writeCerts(opts.Dir); err != nil {
		return nil, err
	}
	if err = c.writeTokens(); err != nil {
		return nil, err
	}
	if err = c.startEtcd(ctx); err != nil {
		return nil, err
	}
	if c.apiAddr, err = freeport.Loopback(); err != nil {
		return nil, err
	}
	c.URL = "https://" + c.apiAddr
	return c, c.startAPIServer(ctx)
}

// Stop stops the API server, then etcd, each within its bound; the files stay in Dir.
func (c *Cluster) Stop() error {
	var errs []error
	for _, p := range []*process{c.apiserver, c.etcd} {
		if p != nil {
			errs = append(errs, p.stop())
		}
	}
	return errors.Join(errs...)
}

// RestartAPIServer stops kube-apiserver and starts it again on the same address with the same
// etcd: every watch open on it ends, and its watch cache starts anew from etcd.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	if err := c.apiserver.stop(); err != nil {
		return err
	}
	return c.startAPIServer(ctx)
}

// APIServerLog is what kube-apiserver wrote, for a failure's message.
func (c *Cluster) APIServerLog() string { return tail(filepath.Join(c.opts.Dir, "kube-apiserver.log")) }

func (c *Cluster) writeTokens() error {
	users := append([]User{{Token: c.AdminToken, Name: "admin", Groups: []string{"system:masters"}}}, c.opts.Users...)
	var csv strings.Builder
	for i, u := range users {
		// token,user,uid,"group1,group2"
		fmt.Fprintf(&csv, "%s,%s,uid-%d,%q\n", u.Token, u.Name, i, strings.Join(u.Groups, ","))
	}
	return os.WriteFile(filepath.Join(c.opts.Dir, "tokens.csv"), []byte(csv.String()), 0o600)
}

func (c *Cluster) startEtcd(ctx context.Context) error {
	client, err := freeport.Loopback()
	if err != nil {
		return err
	}
	peer, err := freeport.Loopback()
	if err != nil {
		return err
	}
	c.EtcdURL = "http://" + client
	c.etcd, err = startProcess("etcd", filepath.Join(c.opts.BinDir, "etcd"), filepath.Join(c.opts.Dir, "etcd.log"),
		"--name=test", "--data-dir="+filepath.Join(c.opts.Dir, "etcd"),
		"--listen-client-urls="+c.EtcdURL, "--advertise-client-urls="+c.EtcdURL,
		"--listen-peer-urls=http://"+peer, "--initial-advertise-peer-urls=http://"+peer,
		"--initial-cluster=test=http://"+peer,
		"--log-level=warn",
		// A test's data need not survive a crash of the machine: no fsync on a shared disk.
		"--unsafe-no-fsync")
	if err != nil {
		return err
	}
	return c.waitReady(ctx, c.etcd, c.etcdHealthy)
}

func (c *Cluster) startAPIServer(ctx context.Context) error {
	dir := c.opts.Dir
	args := append([]string{
		"--etcd-servers=" + c.EtcdURL,
		"--bind-address=127.0.0.1", "--secure-port=" + portOf(c.apiAddr),
		"--advertise-address=127.0.0.1",
		// Nothing writes the API server's own address into the default/kubernetes Service's
		// endpoints: there is no cluster network, only loopback.
		"--endpoint-reconciler-type=none",
		"--tls-cert-file=" + filepath.Join(dir, servingCert), "--tls-private-key-file=" + filepath.Join(dir, servingKey),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--token-auth-file=" + filepath.Join(dir, "tokens.csv"),
		"--anonymous-auth=false",
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + filepath.Join(dir, saKey),
		"--service-account-signing-key-file=" + filepath.Join(dir, saKey),
		"--service-cluster-ip-range=10.96.0.0/16",
		"--profiling=false",
		// At SIGTERM, end the open watches 2 seconds after the other requests are done, rather
		// than wait up to --request-timeout (a minute) for their clients to end them: the
		// restart a test asks for takes seconds, and its watches end as a node's shutdown ends
		// them.
		"--shutdown-send-retry-after=true",
	}, c.opts.APIServerFlags...)
	var err error
	c.apiserver, err = startProcess("kube-apiserver", filepath.Join(c.opts.BinDir, "kube-apiserver"),
		filepath.Join(dir, "kube-apiserver.log"), args...)
	if err != nil {
		return err
	}
	return c.waitReady(ctx, c.apiserver, c.apiReady)
}

// waitReady polls ready until it holds, p exits, startBound passes or ctx ends.
func (c *Cluster) waitReady(ctx context.Context, p *process, ready func(context.Context) bool) error {
	ctx, cancel := context.WithTimeout(ctx, startBound)
	defer cancel()
	for !ready(ctx) {
		if done, err := p.exited(); done {
			return fmt.Errorf("%s exited at start (%v); its log:\n%s", p.name, err, tail(p.log))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %v; its log:\n%s", p.name, startBound, tail(p.log))
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func portOf(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }

// tail is the end of a log file, enough to see why a server stopped.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	const keep = 6 << 10
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return string(b)
}
