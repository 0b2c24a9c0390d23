// Command sandboxed starts a command under __sandbox from Go.
//
// The profile travels on a pipe (fd:3, through exec.Cmd.ExtraFiles), never
// on the command line, so it is neither limited by ARG_MAX nor visible in
// /proc/PID/cmdline.  The shim then becomes the command: same pid, same
// stdin/stdout (an MCP server speaks its protocol on them unchanged).  If
// the command never ran, the shim exits with one "__sandbox: ..." line on
// stderr and Wait returns a *SandboxError carrying that line and the exit
// status, which errors.Is matches against:
//
//	ErrRefused (125): the sandbox could not be set up (profile, a required
//	  part this host cannot enforce, a setup syscall);
//	ErrNotExecutable (126): the command exists but could not be executed
//	  (the line says whether the file mode or the profile is why);
//	ErrNotFound (127): the command was not found.
//
//	p, err := Start(profile, []string{"my-mcp-server"}, stdin, stdout)
//	...
//	err = p.Wait() // nil, *exec.ExitError, or *SandboxError
//	if errors.Is(err, ErrNotFound) { ... }
//
// As a program: sandboxed WORKSPACE -- COMMAND [ARG...] runs COMMAND with
// WORKSPACE writable, the system directories readable, no network and a
// cleared environment, stdin and stdout passed through.  Set SANDBOX to the
// path of __sandbox if it is not on PATH.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// The kinds of *SandboxError, for errors.Is.
var (
	ErrRefused       = errors.New("the sandbox refused to start the command")
	ErrNotExecutable = errors.New("the sandbox could not execute the command")
	ErrNotFound      = errors.New("the sandbox could not find the command")
)

// kinds maps the shim's exit statuses to them.
var kinds = map[int]error{125: ErrRefused, 126: ErrNotExecutable, 127: ErrNotFound}

// SandboxError: __sandbox did not run the command.  Message is the shim's
// one line, ExitCode its exit status (125, 126 or 127).
type SandboxError struct {
	ExitCode int
	Message  string
}

func (e *SandboxError) Error() string { return e.Message }

// Is matches ErrRefused, ErrNotExecutable or ErrNotFound by ExitCode.
func (e *SandboxError) Is(target error) bool { return kinds[e.ExitCode] == target }

// Process is a command running under __sandbox.
type Process struct {
	Cmd     *exec.Cmd
	errLine string
	done    chan struct{}
}

// Start runs argv confined by profile (anything encoding/json can encode).
// stderr is read here: the command's lines and the shim's notices are
// copied to this process's stderr, the shim's error line is kept for Wait.
func Start(profile any, argv []string, stdin io.Reader, stdout io.Writer) (*Process, error) {
	js, err := json.Marshal(profile)
	if err != nil {
		return nil, err
	}
	sandbox := os.Getenv("SANDBOX")
	if sandbox == "" {
		sandbox = "__sandbox"
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(sandbox, append([]string{"fd:3", "--"}, argv...)...)
	cmd.ExtraFiles = []*os.File{r} // descriptor 3 in the child
	cmd.Stdin, cmd.Stdout = stdin, stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	r.Close()
	// written once the shim runs: a profile larger than the pipe buffer
	// would block a write made before; EPIPE means the shim stopped
	go func() { w.Write(js); w.Close() }()
	p := &Process{Cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "__sandbox: ") && !strings.HasPrefix(line, "__sandbox: notice: ") {
				p.errLine = line
			} else {
				fmt.Fprintln(os.Stderr, line)
			}
		}
	}()
	return p, nil
}

// Wait for the command; a *SandboxError if it never ran.
func (p *Process) Wait() error {
	<-p.done // all of stderr read before Wait closes the pipe
	err := p.Cmd.Wait()
	var exit *exec.ExitError
	// after exec the shim prints nothing more: an error line with 125,
	// 126 or 127 means the command never ran
	if errors.As(err, &exit) && kinds[exit.ExitCode()] != nil && p.errLine != "" {
		return &SandboxError{exit.ExitCode(), p.errLine}
	}
	return err
}

// WorkspaceProfile is a profile for a tool working in one directory.
func WorkspaceProfile(workspace string) map[string]any {
	return map[string]any{
		"readable": []string{"/usr", "/etc", "/lib", "/lib64", "/bin", "/sbin"},
		"writable": []string{workspace},
		"network":  "off",
		"env":      map[string]any{"clear": true, "keep": []string{"PATH", "LANG", "LC_*", "TERM"}},
	}
}

func main() {
	args := os.Args[1:]
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: sandboxed WORKSPACE -- COMMAND [ARG...]")
		os.Exit(2)
	}
	p, err := Start(WorkspaceProfile(args[0]), args[2:], os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxed:", err)
		os.Exit(125)
	}
	err = p.Wait()
	var sberr *SandboxError
	var exit *exec.ExitError
	switch {
	case errors.As(err, &sberr):
		// "the sandbox refused to start", "... could not execute", "... could not find"
		what := strings.TrimSuffix(kinds[sberr.ExitCode].Error(), " the command")
		fmt.Fprintf(os.Stderr, "sandboxed: %s %s: %s\n", what, args[2], sberr.Message)
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
