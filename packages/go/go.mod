module sandbox-shim.invalid/sandbox

go 1.19
