// Package opatest builds, signs and tampers with real OPA bundles for the
// tests of the OPA stage (package orgpolicy and the real binary's). It is
// imported by tests only.
package opatest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/compile"
)

// Keys is an RSA key pair in PEM.
func Keys(t testing.TB) (priv, pub string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// Build compiles and signs a bundle with OPA itself (what `opa build
// --signing-key` does).
func Build(t testing.TB, rego, revision, privPEM string) []byte {
	t.Helper()
	c := compile.New().WithAsBundle(true).WithRevision(revision).
		WithFS(fstest.MapFS{"acp/policy.rego": &fstest.MapFile{Data: []byte(rego)}}).WithPaths("acp").
		WithBundleSigningConfig(bundle.NewSigningConfig(privPEM, "RS256", "")).WithBundleVerificationKeyID("org")
	if err := c.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(*c.Bundle()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Tamper rewrites the policy file inside a signed bundle's archive, byte
// for byte, keeping its .signatures.json.
func Tamper(t testing.TB, signed []byte, rego string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(signed))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	changed := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(h.Name, ".rego") {
			data, changed = []byte(rego), true
		}
		h.Size = int64(len(data))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if !changed {
		t.Fatal("no policy file in the bundle")
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
