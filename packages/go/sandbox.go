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
// With Options.Denials (or OnDenial) the shim also writes its denial
// report (profile key "denials") on a pipe of this process's: every system
// call the seccomp filter refused, one Denial each, passed to OnDenial as
// it arrives and returned by Process.Denials, complete once Wait returned.
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
	"sync"
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
	// Denials asks for the denial report, on descriptor 4 of the shim; the
	// profile must not name "denials" itself (Start fails) and is not
	// modified.
	Denials bool
	// OnDenial, if set, is called with each line of the report as it
	// arrives, in order, from a goroutine of its own (it implies Denials).
	// A slow OnDenial loses lines: the listener counts them instead of
	// waiting once this process is 64 KiB behind (Denial.Dropped).
	OnDenial func(Denial)
}

// Denial is one line of the denial report (man __sandbox, "denials"): a
// system call the seccomp filter refused, or the count of lines lost.
type Denial struct {
	Syscall   string  `json:"syscall"`   // the call's name; "" where the report has null (a number libseccomp cannot name)
	Nr        int     `json:"nr"`        // its number
	Errno     int     `json:"errno"`     // what the command got
	Error     string  `json:"error"`     // its name: EPERM, ENOSYS, ...
	Pid       int     `json:"pid"`       // the calling thread, in the shim's PID namespace
	Arch      string  `json:"arch"`      // x86_64, aarch64, ...
	Monotonic float64 `json:"monotonic"` // CLOCK_MONOTONIC, seconds
	Dropped   int     `json:"dropped"`   // a {"dropped":N} line: N lines lost (the other fields are zero)
	Raw       string  `json:"-"`         // a line that is not JSON (a listener killed mid-write), as it was
}

// reportFD is the report's descriptor in the shim: ExtraFiles[1], after
// the profile's.
const reportFD = 4

// Process is a command running under __sandbox.
type Process struct {
	Cmd     *exec.Cmd
	errLine string
	done    chan struct{}

	mu          sync.Mutex
	denials     []Denial      // nil without Options.Denials
	denialsDone chan struct{} // closed at the report's end; nil without it
}

// Denials returns a copy of the report's lines so far, complete once Wait
// has returned; nil if the process was started without Options.Denials.
func (p *Process) Denials() []Denial {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.denials == nil {
		return nil
	}
	return append([]Denial{}, p.denials...)
}

// withReport encodes profile with "denials" naming reportFD; the profile
// must encode as a JSON object that does not name "denials" itself.
func withReport(profile any) ([]byte, error) {
	js, err := json.Marshal(profile)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil || m == nil {
		return nil, errors.New("sandbox: with Options.Denials the profile must encode as a JSON object")
	}
	if _, ok := m["denials"]; ok {
		return nil, errors.New(`sandbox: the profile names "denials" and Options.Denials is set: Start makes the report's pipe itself; drop one of the two`)
	}
	m["denials"] = json.RawMessage(fmt.Sprintf(`{"fd":%d}`, reportFD))
	return json.Marshal(m)
}

// readReport reads the report from r as it comes (the listener never
// waits for a reader), until its end: the last process of the sandbox
// gone (and, before Linux 6.1, reaped).
func (p *Process) readReport(r *os.File, on func(Denial)) {
	defer close(p.denialsDone)
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var d Denial
			if json.Unmarshal(line, &d) != nil {
				d = Denial{Raw: strings.TrimSuffix(string(line), "\n")}
			}
			p.mu.Lock()
			p.denials = append(p.denials, d)
			p.mu.Unlock()
			if on != nil {
				on(d)
			}
		}
		if err != nil {
			return
		}
	}
}

// Start runs argv confined by profile with the zero Options.
func Start(profile any, argv []string, stdin io.Reader, stdout io.Writer) (*Process, error) {
	return Options{}.Start(profile, argv, stdin, stdout)
}

// Start runs argv confined by profile (anything encoding/json can encode,
// e.g. a map or a struct with the profile's keys).  stderr is read here:
// the command's lines and the shim's notices go to o.Stderr, the shim's
// error line is kept for Wait.  With o.Denials the report is read by a
// goroutine (see Options).
func (o Options) Start(profile any, argv []string, stdin io.Reader, stdout io.Writer) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: argv is empty")
	}
	report := o.Denials || o.OnDenial != nil
	var js []byte
	var err error
	if report {
		js, err = withReport(profile)
	} else {
		js, err = json.Marshal(profile)
	}
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
	// os.Pipe's ends are close-on-exec: only ExtraFiles reach the shim
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var repR, repW *os.File
	closeAll := func() {
		for _, f := range []*os.File{r, w, repR, repW} {
			if f != nil {
				f.Close()
			}
		}
	}
	if report {
		if repR, repW, err = os.Pipe(); err != nil {
			closeAll()
			return nil, err
		}
	}
	cmd := exec.Command(bin, append([]string{"fd:3", "--"}, argv...)...)
	cmd.ExtraFiles = []*os.File{r} // descriptor 3 in the child
	if report {
		cmd.ExtraFiles = append(cmd.ExtraFiles, repW) // reportFD
	}
	cmd.Stdin, cmd.Stdout, cmd.Dir, cmd.Env = stdin, stdout, o.Dir, o.Env
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, err
	}
	r.Close()
	p := &Process{Cmd: cmd, done: make(chan struct{})}
	if report {
		// the shim's listener holds the only write end: the report
		// ends when the last process of the sandbox is gone
		repW.Close()
		p.denials = []Denial{}
		p.denialsDone = make(chan struct{})
		go p.readReport(repR, o.OnDenial)
	}
	// written once the shim runs: a profile larger than the pipe buffer
	// would block a write made before; EPIPE means the shim stopped
	go func() { w.Write(js); w.Close() }()
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

// Wait for the command; a *SandboxError if it never ran.  With
// Options.Denials it also waits for the report's end, so Denials is
// complete: a process the command left running (no_survivors prevents
// that) holds it.
func (p *Process) Wait() error {
	<-p.done // all of stderr read before Wait closes the pipe
	err := p.Cmd.Wait()
	if p.denialsDone != nil {
		// after the reap: before Linux 6.1 the report ends only then
		<-p.denialsDone
	}
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
