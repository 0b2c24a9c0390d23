module example.com/sandboxed

go 1.19

require sandbox-shim.invalid/sandbox v0.0.0

// the package from this checkout; outside it, the module `make packages`
// writes (GOPROXY=file://.../build/packages/goproxy) instead
replace sandbox-shim.invalid/sandbox => ../../packages/go
