// Package vlm is edged's client of an OpenAI-compatible chat completions
// API (OpenAI, Gemini's OpenAI-compatible endpoint, vLLM, Ollama,
// llama.cpp's server), over the official SDK (openai-go): no HTTP of its
// own.
//
// What it owns: one request (Complete) of a system prompt, user content
// parts (text, and JPEG images sent as base64 data URLs of exactly the
// bytes given) and a JSON-schema response_format; its answer text, the
// token usage the API reported, the HTTP attempts made and the latency;
// and the embeddings of texts (Embed), at most Config.EmbedBatch texts a
// request, each answer checked (one vector per text, one length).
//
// Configuration: the base URL and key come from Config, else from
// OPENAI_BASE_URL and OPENAI_API_KEY as the SDK reads them; KeyFromFile
// reads a key from a file (a systemd credential). The key is never
// logged, never put in an error (errors are redacted of it) and never
// returned.
//
// Robustness (Complete and every request of Embed alike): at most
// Config.Concurrency requests in flight (a request blocks for a slot), at most Config.RPM HTTP attempts per minute (every
// attempt, retries included, waits for the limiter); 429, 408, 409 and
// 5xx answers are retried by the SDK with backoff, honouring Retry-After
// and Retry-After-Ms; an attempt with no answer within Config.Timeout is
// cancelled and retried here (the SDK does not retry its own timeouts);
// after Config.MaxRetries retries the error says what happened
// (ErrTimeout, or the API's status). The SDK waits out a Retry-After
// within the attempt's timeout (and refuses one over 2 minutes): keep
// Config.Timeout above the waits a server asks for.
//
// Concurrency: a Client is safe for concurrent use. Request's byte
// slices are only read, and only during Complete.
package vlm
