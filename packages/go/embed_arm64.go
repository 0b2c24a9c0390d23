//go:build sandbox_embed

package sandbox

import _ "embed"

// The static binary for linux/arm64, placed here by `make packages`.
//
//go:embed bin/linux-arm64/__sandbox
var embedded []byte
