package s3

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Target is what an s3:// URL names, with a client for it, for writers
// that need more of the S3 API than blob.Blobs (clip/upload's multipart
// uploads). It is the one reading of the URL, the endpoint, the region
// and the credentials: Open's too.
type Target struct {
	Core     *minio.Core
	Bucket   string
	Prefix   string // "" or "PREFIX/"
	URL      string // the URL, without a trailing '/'
	Endpoint string // http(s)://HOST[:PORT]
	Timeout  time.Duration
}

// ParseURL splits s3://BUCKET[/PREFIX] into its bucket and prefix ("" or
// "PREFIX/"). No I/O: config validation calls it.
func ParseURL(raw string) (bucket, prefix string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("s3: %q is not s3://BUCKET[/PREFIX]", raw)
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		prefix = p + "/"
	}
	return u.Host, prefix, nil
}

// NewTarget parses raw (ParseURL) and makes its client from the
// environment (the package doc says which variables). No I/O: the
// first request finds out whether the store is there.
func NewTarget(raw string, o Options) (*Target, error) {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	bucket, prefix, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	ep := o.Getenv("AWS_ENDPOINT_URL_S3")
	if ep == "" {
		ep = o.Getenv("AWS_ENDPOINT_URL")
	}
	if ep == "" {
		ep = "https://s3.amazonaws.com"
	}
	eu, err := url.Parse(ep)
	if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
		return nil, fmt.Errorf("s3: endpoint %q (AWS_ENDPOINT_URL) is not http(s)://HOST[:PORT]", ep)
	}
	region := o.Getenv("AWS_REGION")
	if region == "" {
		region = o.Getenv("AWS_DEFAULT_REGION")
	}
	var chain []credentials.Provider
	if id := o.Getenv("AWS_ACCESS_KEY_ID"); id != "" {
		chain = append(chain, &credentials.Static{Value: credentials.Value{AccessKeyID: id,
			SecretAccessKey: o.Getenv("AWS_SECRET_ACCESS_KEY"), SessionToken: o.Getenv("AWS_SESSION_TOKEN"),
			SignerType: credentials.SignatureV4}})
	}
	creds := credentials.NewChainCredentials(append(chain,
		&credentials.FileAWSCredentials{Filename: o.Getenv("AWS_SHARED_CREDENTIALS_FILE"), Profile: o.Getenv("AWS_PROFILE")},
		&credentials.IAM{},
	))
	lookup := minio.BucketLookupAuto
	if eu.Host != "s3.amazonaws.com" {
		lookup = minio.BucketLookupPath // gateways and self-hosted stores
	}
	c, err := minio.NewCore(eu.Host, &minio.Options{Creds: creds, Secure: eu.Scheme == "https", Region: region, BucketLookup: lookup})
	if err != nil {
		return nil, fmt.Errorf("s3: %w", err)
	}
	return &Target{Core: c, Bucket: bucket, Prefix: prefix, URL: strings.TrimSuffix(raw, "/"), Endpoint: ep, Timeout: o.Timeout}, nil
}

// ObjectURL is the s3:// URL of the object at name under the target's
// prefix.
func (t *Target) ObjectURL(name string) string { return "s3://" + t.Bucket + "/" + t.Prefix + name }

// Key is the object key of name under the target's prefix.
func (t *Target) Key(name string) string { return t.Prefix + name }
