package agent

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// A RetryPolicy says how a session retries a provider call that failed
// in a way that may pass (rate limits, server errors, lost connections;
// see [ProviderError.Retryable]). The zero value is [defaultRetry].
//
// The session does the retrying, not the SDKs (whose own retries are
// turned off), so one policy covers every provider and each retry is in
// the transcript.
type RetryPolicy struct {
	// Attempts is the most calls made in all, the first included; 0
	// means 4, and 1 means no retry.
	Attempts int
	// BaseDelay is the wait before the first retry, doubled for each
	// retry after it (with jitter); 0 means 500ms.
	BaseDelay time.Duration
	// MaxDelay caps every wait, also one the provider asked for with
	// Retry-After; 0 means 30s.
	MaxDelay time.Duration
}

// defaultRetry is the policy a zero [RetryPolicy] stands for.
var defaultRetry = RetryPolicy{Attempts: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = defaultRetry.Attempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = defaultRetry.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = defaultRetry.MaxDelay
	}
	return p
}

// delay is the wait before retry number n (1 for the first retry) after
// err: what the provider asked for if it did, else exponential backoff
// with full jitter in [d/2, d], capped by MaxDelay.
func (p RetryPolicy) delay(n int, err *ProviderError) time.Duration {
	if err.RetryAfter > 0 {
		return min(err.RetryAfter, p.MaxDelay)
	}
	d := p.BaseDelay << min(n-1, 20)
	if d <= 0 || d > p.MaxDelay {
		d = p.MaxDelay
	}
	return d/2 + rand.N(d/2+1)
}

// complete calls the provider until it answers, fails in a way a retry
// cannot fix, or the attempts are spent. Before each retry it calls
// onRetry with the attempt that failed (1 for the first call), the error
// and the wait.
func (p RetryPolicy) complete(ctx context.Context, prov Provider, req *Request,
	onRetry func(attempt int, err *ProviderError, wait time.Duration)) (*Response, error) {
	p = p.withDefaults()
	for attempt := 1; ; attempt++ {
		resp, err := prov.Complete(ctx, req)
		if err == nil {
			return resp, nil
		}
		var pe *ProviderError
		if ctx.Err() != nil || !errors.As(err, &pe) || !pe.Retryable() || attempt >= p.Attempts {
			return nil, err
		}
		wait := p.delay(attempt, pe)
		if onRetry != nil {
			onRetry(attempt, pe, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
