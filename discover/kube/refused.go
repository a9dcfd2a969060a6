package kube

import (
	"errors"
	"net/http"
	"strings"
)

// forbidden says whether err is the API server's 403: the account lacks a grant (RBAC), which
// no retry mends until someone grants it.
func forbidden(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == http.StatusForbidden
}

// grantNeeded is the RBAC grant a watcher's requests need, as a log line names it: the verbs,
// the resource as RBAC spells it (RESOURCE.GROUP, the core group's without), and where.
func grantNeeded(groupPath, resource, namespace string) string {
	if group, ok := strings.CutPrefix(groupPath, "/apis/"); ok {
		group, _, _ = strings.Cut(group, "/")
		resource += "." + group
	}
	where := "in every namespace (a ClusterRole)"
	if namespace != "" {
		where = "in namespace " + namespace
	}
	return "get, list and watch on " + resource + " " + where
}
