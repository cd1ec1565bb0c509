// Package vlmtest is an OpenAI-compatible chat completions server for
// tests (httptest on loopback): it checks each request as the real API
// would (POST /v1/chat/completions, the Authorization header, the model,
// a system then a user message, content parts of text or image_url, data
// URLs that decode to JPEG, a json_schema response_format) and answers
// from a script: Faults first, in order (429 with Retry-After, 500s, a
// hung request), then Answer, a function of the checked request (tests
// answer from an episode's ground truth). It records every request it
// got (Requests) and every check that failed (Refused). Embeddings
// enables POST /v1/embeddings for a model, checked likewise (input a
// string or a list of non-empty strings, encoding_format float or
// base64) and answered with a scripted vector per text; the faults are
// shared by both endpoints, in arrival order (EmbedRequests).
//
// Concurrency: the handler runs on the server's goroutines; Answer must
// be safe for concurrent use. A hung request returns when its client
// gives up or the server closes (at the test's cleanup).
package vlmtest
