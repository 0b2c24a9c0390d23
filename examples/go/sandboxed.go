// Command sandboxed starts a command under __sandbox from Go: a thin user
// of the sandbox package (packages/go, through the replace directive in
// go.mod).
//
// The package hands the profile to the shim on a pipe (fd:3, never the
// command line), the shim becomes the command (same pid, same
// stdin/stdout), and a command that never ran makes Wait return a
// *sandbox.SandboxError carrying the shim's one line, which errors.Is
// matches against sandbox.ErrRefused (125), ErrNotExecutable (126) or
// ErrNotFound (127).  The binary is $SANDBOX, else __sandbox on PATH (or
// the one embedded with -tags sandbox_embed in the module `make packages`
// writes).
//
// sandboxed WORKSPACE -- COMMAND [ARG...] runs COMMAND with WORKSPACE
// writable, the system directories readable, no network and a cleared
// environment, stdin and stdout passed through.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"sandbox-shim.invalid/sandbox"
)

// what the shim did not do, by the kind of its refusal
var what = []struct {
	kind error
	text string
}{
	{sandbox.ErrRefused, "the sandbox refused to start"},
	{sandbox.ErrNotExecutable, "the sandbox could not execute"},
	{sandbox.ErrNotFound, "the sandbox could not find"},
}

func main() {
	args := os.Args[1:]
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: sandboxed WORKSPACE -- COMMAND [ARG...]")
		os.Exit(2)
	}
	p, err := sandbox.Start(sandbox.WorkspaceProfile(args[0]), args[2:], os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxed:", err)
		os.Exit(125)
	}
	err = p.Wait()
	var sberr *sandbox.SandboxError
	var exit *exec.ExitError
	switch {
	case errors.As(err, &sberr):
		for _, w := range what {
			if errors.Is(err, w.kind) {
				fmt.Fprintf(os.Stderr, "sandboxed: %s %s: %s\n", w.text, args[2], sberr.Message)
			}
		}
		os.Exit(sberr.ExitCode)
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			os.Exit(128 + int(ws.Signal())) // as a shell reports it
		}
		os.Exit(exit.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "sandboxed:", err)
		os.Exit(125)
	}
}
