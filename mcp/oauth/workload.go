package oauth

import (
	"context"
	"errors"
	"net/url"
	"strings"
)

// workload gets a token for a workload (grant "workload", workload
// identity federation: SEP-1933): the JWT its platform issued it (a
// Kubernetes service-account token, a CI job's OIDC token), read now from
// its source, is the assertion of a JWT bearer grant (RFC 7523) at the
// authorization server, the configured client authenticating as usual.
// A refusal is reported as it is: no retry, no other grant.
func (o *State) workload(ctx context.Context, d *discovery, ch challenge, extra []string) error {
	if o.cfg.ClientID == "" {
		return errors.New("grant \"workload\" needs client_id (the client registered at the authorization server)")
	}
	client, err := o.identify(ctx, d, "")
	if err != nil {
		return err
	}
	c := o.cfg
	jwt, err := o.resolve(ctx, "workload_token", Source{c.WorkloadToken, c.WorkloadTokenEnv,
		c.WorkloadTokenFile, c.WorkloadTokenCommand})
	if err != nil {
		return err
	}
	if jwt == "" {
		return errors.New("grant \"workload\" needs the workload's JWT: set workload_token_env, workload_token_file or workload_token_command")
	}
	o.red.Add(jwt)
	scope := strings.Join(unionScopes(strings.Fields(o.requestedScope(d, ch)), extra), " ")
	form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {jwt}, "resource": {d.resource}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return o.tokenRequest(ctx, d, client, form, scope)
}
