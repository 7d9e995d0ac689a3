package oauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// dpopKey is a server's DPoP key (RFC 9449, opt-in with Config.DPoP):
// an EC P-256 key the tokens are bound to, which signs a fresh proof for
// every token request and every request to the MCP server. It is kept
// with the login (authRecord.DPoPKey) and redacted like every secret.
type dpopKey struct {
	key *ecdsa.PrivateKey
	pem string

	mu     sync.Mutex
	nonces map[string]string // the last DPoP-Nonce, by origin
}

// newDPoPKey makes a key, or reads the one a login kept (PEM).
func newDPoPKey(keyPEM string) (*dpopKey, error) {
	if keyPEM != "" {
		if block, _ := pem.Decode([]byte(keyPEM)); block != nil {
			if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil && k.Curve == elliptic.P256() {
				return &dpopKey{key: k, pem: keyPEM, nonces: map[string]string{}}, nil
			}
		}
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, err
	}
	p := string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}))
	return &dpopKey{key: k, pem: p, nonces: map[string]string{}}, nil
}

// proof is a DPoP proof for a request (method, target): its htu is target
// without query or fragment; ath binds it to the access token presented
// with it ("" at the token endpoint); the nonce is the last one the
// target's origin gave.
func (k *dpopKey) proof(method, target, accessToken string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	jti, err := randomID()
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	point, err := k.key.PublicKey.Bytes() // 0x04, then x and y of 32 bytes each
	if err != nil || len(point) != 65 {
		return "", fmt.Errorf("the DPoP key's public point: %v", err)
	}
	xb, yb := point[1:33], point[33:]
	head, _ := json.Marshal(map[string]any{"typ": "dpop+jwt", "alg": "ES256",
		"jwk": map[string]string{"kty": "EC", "crv": "P-256", "x": enc.EncodeToString(xb), "y": enc.EncodeToString(yb)}})
	claims := map[string]any{"jti": jti, "htm": method, "htu": u.String(), "iat": time.Now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = enc.EncodeToString(sum[:])
	}
	if n := k.nonce(u); n != "" {
		claims["nonce"] = n
	}
	body, _ := json.Marshal(claims)
	signing := enc.EncodeToString(head) + "." + enc.EncodeToString(body)
	sig, err := sign(k.key, signing)
	if err != nil {
		return "", err
	}
	return signing + "." + enc.EncodeToString(sig), nil
}

// nonce is the last DPoP-Nonce of u's origin.
func (k *dpopKey) nonce(u *url.URL) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nonces[u.Scheme+"://"+u.Host]
}

// noteNonce keeps the DPoP-Nonce an answer from target carries, and
// reports whether it was a new one.
func (k *dpopKey) noteNonce(target string, h http.Header) bool {
	n := h.Get("DPoP-Nonce")
	u, err := url.Parse(target)
	if n == "" || err != nil {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	origin := u.Scheme + "://" + u.Host
	if k.nonces[origin] == n {
		return false
	}
	k.nonces[origin] = n
	return true
}

// sendDPoP sends a request made by build with a fresh proof (for the
// access token tok, "" at the token endpoint), once more with the nonce
// when the answer asks for one (use_dpop_nonce: RFC 9449 §8, §9).
func (k *dpopKey) sendDPoP(do func(*http.Request) (*http.Response, error), build func() (*http.Request, error), tok string) (*http.Response, error) {
	for try := 0; ; try++ {
		req, err := build()
		if err != nil {
			return nil, err
		}
		p, err := k.proof(req.Method, req.URL.String(), tok)
		if err != nil {
			return nil, err
		}
		req.Header.Set("DPoP", p)
		resp, err := do(req)
		if err != nil {
			return nil, err
		}
		fresh := k.noteNonce(req.URL.String(), resp.Header)
		if try > 0 || !fresh || !asksNonce(resp) {
			return resp, nil
		}
		drain(resp)
	}
}

// asksNonce reports whether an answer asks for a DPoP nonce: a token
// endpoint's 400 use_dpop_nonce, or a resource's 401 challenge saying so.
func asksNonce(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return parseChallenge(resp.Header).err == "use_dpop_nonce"
	case http.StatusBadRequest:
		return strings.Contains(resp.Header.Get("Content-Type"), "json") && peekError(resp) == "use_dpop_nonce"
	}
	return false
}

// peekError reads a JSON error answer's error code, leaving the body to
// be read again.
func peekError(resp *http.Response) string {
	raw, err := readAllLimited(resp)
	if err != nil {
		return ""
	}
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.Error
}

// readAllLimited reads a response's body and puts it back, to be read
// again.
func readAllLimited(resp *http.Response) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return raw, err
}
