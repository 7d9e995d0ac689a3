package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"time"
)

// clientAssertion is a private_key_jwt client assertion (RFC 7523): a JWT
// from the client about itself, for the authorization server (aud),
// signed with key (PEM: an EC P-256 key signs ES256, an RSA key RS256).
func clientAssertion(clientID, audience, keyPEM string) (string, error) {
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return "", errors.New("client_key_file: not a PEM private key")
	}
	key, err := parsePrivateKey(block.Bytes)
	if err != nil {
		return "", err
	}
	alg := "RS256"
	if _, ok := key.(*ecdsa.PrivateKey); ok {
		alg = "ES256"
	}
	jti, err := randomID()
	if err != nil {
		return "", err
	}
	now := time.Now()
	head, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": jti})
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(head) + "." + enc.EncodeToString(claims)
	sig, err := sign(key, signing)
	if err != nil {
		return "", err
	}
	return signing + "." + enc.EncodeToString(sig), nil
}

// parsePrivateKey reads a PKCS #8, SEC 1 (EC) or PKCS #1 (RSA) key.
func parsePrivateKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		switch k := k.(type) {
		case *ecdsa.PrivateKey:
			return k, nil
		case *rsa.PrivateKey:
			return k, nil
		}
		return nil, errors.New("client_key_file: only EC P-256 and RSA keys are supported")
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("client_key_file: cannot read the private key")
}

// sign signs s: ES256 as the raw r‖s pair JWS wants, or RS256.
func sign(key crypto.Signer, s string) ([]byte, error) {
	h := sha256.Sum256([]byte(s))
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, errors.New("client_key_file: an EC key must be on P-256 (ES256)")
		}
		r, sv, err := ecdsa.Sign(rand.Reader, k, h[:])
		if err != nil {
			return nil, err
		}
		out := make([]byte, 64)
		r.FillBytes(out[:32])
		sv.FillBytes(out[32:])
		return out, nil
	case *rsa.PrivateKey:
		return rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, h[:])
	}
	return nil, errors.New("client_key_file: unsupported key")
}

// randomID is 16 random bytes, base64url.
func randomID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
