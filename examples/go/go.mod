module example.com/sandboxed

go 1.19
