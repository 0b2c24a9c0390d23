//go:build sandbox_embed

package sandbox

import _ "embed"

// The static binary for linux/amd64, placed here by `make packages`.
//
//go:embed bin/linux-amd64/__sandbox
var embedded []byte
