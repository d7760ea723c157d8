// Package providers has the model providers that speak HTTP: Anthropic's
// Messages API ([NewAnthropic]) and OpenAI-compatible chat completions
// ([NewOpenAI]), which also serves local servers such as llama.cpp and
// Ollama. Each maps the neutral types of package agent to its wire format
// with the official SDK and back, and classifies every failure as an
// [*agent.ProviderError].
//
// # Retries
//
// The SDKs' own retries are off: the session retries a call whose error is
// [agent.ProviderError.Retryable], waiting [agent.ProviderError.RetryAfter]
// when the server asked for it, so one policy covers every provider and
// each attempt is in the transcript.
//
// # Limits
//
// A reply body larger than [MaxResponseBytes] is not read past that size
// and fails as [agent.ErrMalformed]: a hostile or broken local server
// cannot make the host hold an unbounded reply.
//
// # API
//
// Providers:
//   - [NewAnthropic]: a provider for Anthropic's Messages API;
//     [DefaultAnthropicModel] is its model when none is named.
//   - [NewOpenAI]: a provider for OpenAI chat completions and servers that
//     speak them; a failed tool result is sent prefixed by
//     [toolErrorPrefix].
//
// Configuration:
//   - [Options]: key, base URL, default model, HTTP client and timeout.
//   - [FromEnv]: fills the key and base URL from the usual environment
//     variables.
//   - [MaxResponseBytes]: the largest reply body read.
package providers
