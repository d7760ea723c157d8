package providers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Options configure a provider. The providers never read the environment
// themselves (a library's behaviour should not change with it); a program
// that wants the usual variables calls [FromEnv].
type Options struct {
	// APIKey is the key sent with every request. Anthropic needs one; an
	// OpenAI-compatible local server may not.
	APIKey string
	// BaseURL is the API's base URL; "" is the provider's public endpoint.
	BaseURL string
	// Model is used when a request names none.
	Model string
	// HTTPClient sends the requests; nil is a client of the SDK's own.
	HTTPClient *http.Client
	// Timeout bounds one call, headers and body; 0 is 10 minutes.
	Timeout time.Duration
}

// MaxResponseBytes bounds the body of a reply the providers read.
const MaxResponseBytes = 8 << 20

// defaultTimeout bounds a call when Options.Timeout is 0. Anthropic's SDK
// refuses non-streaming calls it expects to take longer than 10 minutes
// unless a timeout is set, so one is always set.
const defaultTimeout = 10 * time.Minute

// FromEnv returns o with an empty APIKey and BaseURL taken from the
// provider's usual environment variables: ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL for "anthropic", OPENAI_API_KEY and OPENAI_BASE_URL
// for "openai".
func FromEnv(o Options, provider string) Options {
	prefix := strings.ToUpper(provider)
	if o.APIKey == "" {
		o.APIKey = os.Getenv(prefix + "_API_KEY")
	}
	if o.BaseURL == "" {
		o.BaseURL = os.Getenv(prefix + "_BASE_URL")
	}
	return o
}

// resolve checks the base URL and sets the default timeout.
func (o Options) resolve() (Options, error) {
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, fmt.Errorf("base URL %q: want http(s)://host[:port][/path]", o.BaseURL)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		o.BaseURL = u.String()
	}
	if o.Timeout < 0 {
		return o, errors.New("negative timeout")
	}
	if o.Timeout == 0 {
		o.Timeout = defaultTimeout
	}
	return o, nil
}
