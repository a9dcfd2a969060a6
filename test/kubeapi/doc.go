// Package kubeapi holds moonbridge's tests against a real Kubernetes API: kube-apiserver and
// etcd at the versions go.mod pins, built by scripts/kube-binaries.sh and started by the
// cluster package. It is a module of its own so that moonbridge's go.mod stays free of
// Kubernetes. `make test-kube` builds the servers (once, into the cache) and runs the tests;
// docs/development.md says how.
package kubeapi
