package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"time"
)

// The DPoP nonces the servers hand out (Config.DPoPNonce).
const (
	asNonce = "as-nonce-1"
	rsNonce = "rs-nonce-1"
)

// dpopProof is what a checked DPoP proof says.
type dpopProof struct {
	jkt, nonce, ath, jti string
}

// checkDPoP checks r's DPoP proof (RFC 9449 §4.3): one dpop+jwt ES256
// proof, signed by the public key it carries, for r's method and the URL
// want (no query), issued within the last minute, with a jti not seen
// before.
func (s *Server) checkDPoP(r *http.Request, want string) (dpopProof, error) {
	vals := r.Header.Values("DPoP")
	if len(vals) != 1 {
		return dpopProof{}, errors.New("want exactly one DPoP proof")
	}
	parts := strings.Split(vals[0], ".")
	if len(parts) != 3 {
		return dpopProof{}, errors.New("the proof is not a JWS")
	}
	enc := base64.RawURLEncoding
	var head struct {
		Typ, Alg string
		JWK      struct{ Kty, Crv, X, Y, D string }
	}
	var claims struct {
		JTI, HTM, HTU, Nonce, ATH string
		IAT                       int64
	}
	hb, err1 := enc.DecodeString(parts[0])
	cb, err2 := enc.DecodeString(parts[1])
	sig, err3 := enc.DecodeString(parts[2])
	if errors.Join(err1, err2, err3) != nil || json.Unmarshal(hb, &head) != nil || json.Unmarshal(cb, &claims) != nil {
		return dpopProof{}, errors.New("the proof cannot be read")
	}
	if head.Typ != "dpop+jwt" || head.Alg != "ES256" || head.JWK.Kty != "EC" || head.JWK.Crv != "P-256" || head.JWK.D != "" {
		return dpopProof{}, errors.New("want typ dpop+jwt, ES256 and a public P-256 jwk")
	}
	x, errx := enc.DecodeString(head.JWK.X)
	y, erry := enc.DecodeString(head.JWK.Y)
	if errx != nil || erry != nil || len(x) != 32 || len(y) != 32 || len(sig) != 64 {
		return dpopProof{}, errors.New("bad key or signature")
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return dpopProof{}, errors.New("the key is not a point of P-256")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return dpopProof{}, errors.New("the signature does not verify")
	}
	if claims.HTM != r.Method || claims.HTU != want || time.Since(time.Unix(claims.IAT, 0)).Abs() > time.Minute || claims.JTI == "" {
		return dpopProof{}, errors.New("htm, htu, iat or jti is wrong")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jtis[claims.JTI] {
		return dpopProof{}, errors.New("a proof used twice")
	}
	s.jtis[claims.JTI] = true
	s.DPoPProofs++
	thumb := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + head.JWK.X + `","y":"` + head.JWK.Y + `"}`))
	return dpopProof{jkt: enc.EncodeToString(thumb[:]), nonce: claims.Nonce, ath: claims.ATH, jti: claims.JTI}, nil
}

// dpopToken checks a token request's proof (Config.DPoP): it returns the
// key's thumbprint to bind the token to, or answers the error itself.
func (s *Server) dpopToken(w http.ResponseWriter, r *http.Request, as string) (string, bool) {
	p, err := s.checkDPoP(r, s.asURL(as)+"/token")
	switch {
	case err != nil:
		writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
		return "", false
	case s.cfg.DPoPNonce && p.nonce != asNonce:
		w.Header().Set("DPoP-Nonce", asNonce)
		writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce"})
		return "", false
	}
	return p.jkt, true
}

// dpopAccess checks a request that presents a DPoP-bound token: the DPoP
// scheme, a proof by the token's key for this request and token, and the
// nonce (Config.DPoPNonce); it answers the refusal itself.
func (s *Server) dpopAccess(w http.ResponseWriter, r *http.Request, scheme, tok string, t token, md string) bool {
	p, err := s.checkDPoP(r, s.MCP.URL+r.URL.Path)
	sum := sha256.Sum256([]byte(tok))
	switch {
	case !strings.EqualFold(scheme, "DPoP"), err != nil, p.jkt != t.jkt, p.ath != base64.RawURLEncoding.EncodeToString(sum[:]):
		w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token"`+md)
		w.WriteHeader(http.StatusUnauthorized)
		return false
	case s.cfg.DPoPNonce && p.nonce != rsNonce:
		w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`+md)
		w.Header().Set("DPoP-Nonce", rsNonce)
		w.WriteHeader(http.StatusUnauthorized)
		return false
	}
	return true
}
