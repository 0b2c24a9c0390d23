//go:build !sandbox_embed || !(amd64 || arm64)

package sandbox

// No binary embedded: $SANDBOX or PATH (see Binary).
var embedded []byte
