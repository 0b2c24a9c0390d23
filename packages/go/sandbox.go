// Package sandbox starts commands under __sandbox from Go.
//
// The profile travels on a pipe (fd:3, through exec.Cmd.ExtraFiles), never
// on the command line, so it is neither limited by ARG_MAX nor visible in
// /proc/PID/cmdline.  The shim then becomes the command: same pid, same
// stdin/stdout (an MCP server speaks its protocol on them unchanged).  If
// the command never ran, the shim exits with one "__sandbox: ..." line on
// stderr and Wait returns a *SandboxError carrying that line and the exit
// status, which errors.Is matches against ErrRefused (125: the sandbox
// could not be set up), ErrNotExecutable (126) or ErrNotFound (127).
//
//	p, err := sandbox.Start(profile, []string{"my-mcp-server", ws}, stdin, stdout)
//	...
//	err = p.Wait() // nil, *exec.ExitError, or *SandboxError
//
// The binary is $SANDBOX, else the one embedded in this package when built
// with -tags sandbox_embed (the module `make packages` writes carries the
// static binaries for amd64 and arm64), else __sandbox on PATH.
//
// The module path ends in .invalid on purpose: it is not published, so no
// proxy can serve a look-alike; use it through a replace directive or the
// file proxy `make packages` writes (build/packages/goproxy).
package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
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

// Binary is the __sandbox to run: $SANDBOX, else the embedded binary
// (written once to the user's cache directory, checked by its SHA-256 on
// each process's first use), else __sandbox looked up on PATH.
func Binary() (string, error) {
	if s := os.Getenv("SANDBOX"); s != "" {
		return s, nil
	}
	if len(embedded) > 0 {
		return extracted()
	}
	p, err := exec.LookPath("__sandbox")
	if err != nil {
		return "", fmt.Errorf("sandbox: no __sandbox: not on PATH, SANDBOX unset, and this build embeds none (-tags sandbox_embed): %w", err)
	}
	return p, nil
}

// Options of a start; the zero value runs Binary() in this process's
// directory and environment, stderr copied to os.Stderr.
type Options struct {
	Sandbox string    // path of __sandbox; "" means Binary()
	Dir     string    // working directory of the shim (and the command, unless the profile has cwd)
	Env     []string  // environment of the shim; nil means this process's
	Stderr  io.Writer // the command's stderr lines and the shim's notices; nil means os.Stderr
}

// Process is a command running under __sandbox.
type Process struct {
	Cmd     *exec.Cmd
	errLine string
	done    chan struct{}
}

// Start runs argv confined by profile with the zero Options.
func Start(profile any, argv []string, stdin io.Reader, stdout io.Writer) (*Process, error) {
	return Options{}.Start(profile, argv, stdin, stdout)
}

// Start runs argv confined by profile (anything encoding/json can encode,
// e.g. a map or a struct with the profile's keys).  stderr is read here:
// the command's lines and the shim's notices go to o.Stderr, the shim's
// error line is kept for Wait.
func (o Options) Start(profile any, argv []string, stdin io.Reader, stdout io.Writer) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: argv is empty")
	}
	js, err := json.Marshal(profile)
	if err != nil {
		return nil, err
	}
	bin := o.Sandbox
	if bin == "" {
		if bin, err = Binary(); err != nil {
			return nil, err
		}
	}
	errOut := o.Stderr
	if errOut == nil {
		errOut = os.Stderr
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"fd:3", "--"}, argv...)...)
	cmd.ExtraFiles = []*os.File{r} // descriptor 3 in the child
	cmd.Stdin, cmd.Stdout, cmd.Dir, cmd.Env = stdin, stdout, o.Dir, o.Env
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		r.Close()
		w.Close()
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
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			if isErrorLine(line) {
				p.errLine = line
			} else {
				fmt.Fprintln(errOut, line)
			}
		}
		io.Copy(io.Discard, errPipe) // a line too long for the scanner
	}()
	return p, nil
}

func isErrorLine(line string) bool {
	return strings.HasPrefix(line, "__sandbox: ") && !strings.HasPrefix(line, "__sandbox: notice: ")
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

// run runs the shim with args, the profile (if any) on descriptor 3.
func (o Options) run(args []string, profile any) (code int, stdout []byte, stderr string, err error) {
	bin := o.Sandbox
	if bin == "" {
		if bin, err = Binary(); err != nil {
			return 0, nil, "", err
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = o.Dir, o.Env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	var w *os.File
	if profile != nil {
		js, err := json.Marshal(profile)
		if err != nil {
			return 0, nil, "", err
		}
		r, pw, err := os.Pipe()
		if err != nil {
			return 0, nil, "", err
		}
		cmd.ExtraFiles = []*os.File{r}
		defer r.Close()
		w = pw
		go func() { w.Write(js); w.Close() }()
	}
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.Bytes(), errb.String(), nil
	}
	if err != nil && w != nil {
		w.Close()
	}
	return 0, out.Bytes(), errb.String(), err
}

func lastErrorLine(stderr string) string {
	msg := strings.TrimSpace(stderr)
	for _, l := range strings.Split(stderr, "\n") {
		if isErrorLine(l) {
			msg = l
		}
	}
	return msg
}

// Check returns the plan __sandbox --check prints for profile, parsed: for
// a profile this host would run (plan["refused"] empty, exit 0) and for
// one it would refuse (refused names each part, exit 125).  A profile that
// is not valid has no plan: a *SandboxError matching ErrRefused.
func (o Options) Check(profile any) (map[string]any, error) {
	code, out, errs, err := o.run([]string{"--check", "fd:3"}, profile)
	if err != nil {
		return nil, err
	}
	if (code == 0 || code == 125) && len(bytes.TrimSpace(out)) > 0 {
		var plan map[string]any
		if err := json.Unmarshal(out, &plan); err != nil {
			return nil, err
		}
		return plan, nil
	}
	return nil, &SandboxError{125, lastErrorLine(errs)}
}

// Check with the zero Options.
func Check(profile any) (map[string]any, error) { return Options{}.Check(profile) }

// Probe returns what this host can enforce (__sandbox --probe), parsed.
func (o Options) Probe() (map[string]any, error) {
	code, out, errs, err := o.run([]string{"--probe"}, nil)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, &SandboxError{code, lastErrorLine(errs)}
	}
	var probe map[string]any
	if err := json.Unmarshal(out, &probe); err != nil {
		return nil, err
	}
	return probe, nil
}

// Probe with the zero Options.
func Probe() (map[string]any, error) { return Options{}.Probe() }

// WorkspaceProfile is a profile for a tool working in one directory: the
// system trees readable, workspace writable, no network, a cleared
// environment but PATH, LANG, LC_* and TERM.
func WorkspaceProfile(workspace string) map[string]any {
	return map[string]any{
		"readable": []string{"/usr", "/etc", "/lib", "/lib64", "/bin", "/sbin"},
		"writable": []string{workspace},
		"network":  "off",
		"env":      map[string]any{"clear": true, "keep": []string{"PATH", "LANG", "LC_*", "TERM"}},
	}
}
