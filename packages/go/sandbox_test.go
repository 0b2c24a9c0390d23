package sandbox

// go test with SANDBOX set to a built __sandbox (or -tags sandbox_embed) and SB_WORKSPACE to an
// existing directory (tests/packages/go.t runs it): each failure of
// the shim comes back as a *SandboxError that errors.Is matches to its kind.

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestSandboxErrors(t *testing.T) {
	ws := os.Getenv("SB_WORKSPACE")
	if _, err := Binary(); err != nil || ws == "" {
		t.Skip("needs a __sandbox (SANDBOX, PATH or -tags sandbox_embed) and SB_WORKSPACE (an existing directory)")
	}
	if err := os.WriteFile(ws+"/not-exec", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		profile map[string]any
		argv    []string
		kind    error
		code    int
		message string
	}{
		{"refused", map[string]any{"writable": []string{ws + "/missing"}}, []string{"true"},
			ErrRefused, 125, `__sandbox: profile .writable[0] "` + ws + `/missing": No such file or directory`},
		{"not executable", map[string]any{"writable": []string{ws}}, []string{ws + "/not-exec"},
			ErrNotExecutable, 126, `__sandbox: "` + ws + `/not-exec": cannot execute: the file mode (0644)`},
		{"not found", map[string]any{"writable": []string{ws}, "env": map[string]any{"set": map[string]string{"PATH": "/usr/bin"}}},
			[]string{"no-such-command-sb"}, ErrNotFound, 127, `__sandbox: "no-such-command-sb": command not found on PATH (/usr/bin)`},
	} {
		p, err := Start(c.profile, c.argv, nil, nil)
		if err != nil {
			t.Fatalf("%s: Start: %v", c.name, err)
		}
		err = p.Wait()
		var sberr *SandboxError
		if !errors.As(err, &sberr) {
			t.Errorf("%s: want a *SandboxError, got %T %v", c.name, err, err)
			continue
		}
		if !errors.Is(err, c.kind) || sberr.ExitCode != c.code || !strings.HasPrefix(sberr.Message, c.message) {
			t.Errorf("%s: want %v, %d, %q...; got %d, %q", c.name, c.kind, c.code, c.message, sberr.ExitCode, sberr.Message)
		}
		for _, other := range []error{ErrRefused, ErrNotExecutable, ErrNotFound} {
			if other != c.kind && errors.Is(err, other) {
				t.Errorf("%s: errors.Is matches %v too", c.name, other)
			}
		}
	}
	// the command's own 127 is its exit status, not a *SandboxError
	p, err := Start(map[string]any{"writable": []string{ws}}, []string{"/bin/sh", "-c", "exit 127"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sberr *SandboxError
	if err := p.Wait(); err == nil || errors.As(err, &sberr) {
		t.Errorf("the command's own 127: want an *exec.ExitError, got %T %v", err, err)
	}
}

func TestCheckProbe(t *testing.T) {
	ws := os.Getenv("SB_WORKSPACE")
	if _, err := Binary(); err != nil || ws == "" {
		t.Skip("needs a __sandbox (SANDBOX, PATH or -tags sandbox_embed) and SB_WORKSPACE (an existing directory)")
	}
	probe, err := Probe()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := probe["landlock"].(map[string]any); !ok {
		t.Errorf("probe: no landlock object: %v", probe)
	}
	plan, err := Check(map[string]any{"writable": []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	if refused, ok := plan["refused"].([]any); !ok || len(refused) != 0 {
		t.Errorf("check: want refused = [], got %v", plan["refused"])
	}
	// an invalid profile has no plan: ErrRefused with the shim's line
	_, err = Check(map[string]any{"writable": []string{"relative"}})
	var sberr *SandboxError
	if !errors.As(err, &sberr) || !errors.Is(err, ErrRefused) || !strings.Contains(sberr.Message, ".writable[0]") {
		t.Errorf("check of an invalid profile: got %T %v", err, err)
	}
}

// withReport (Options.Denials): the caller's profile as it was, plus
// "denials" naming reportFD; a profile naming "denials" itself, or one that
// is not a JSON object, refused.  Needs no binary.
func TestWithReport(t *testing.T) {
	profile := map[string]any{"writable": []string{"/w"}}
	js, err := withReport(profile)
	if err != nil || string(js) != `{"denials":{"fd":4},"writable":["/w"]}` {
		t.Errorf("withReport: got %s, %v", js, err)
	}
	if _, ok := profile["denials"]; ok || len(profile) != 1 {
		t.Errorf("withReport modified the caller's profile: %v", profile)
	}
	if _, err := withReport(map[string]any{"denials": map[string]int{"fd": 9}}); err == nil ||
		!strings.Contains(err.Error(), `the profile names "denials" and Options.Denials is set`) {
		t.Errorf("a profile naming denials: got %v", err)
	}
	for _, p := range []any{nil, []string{"x"}, "x"} {
		if _, err := withReport(p); err == nil || !strings.Contains(err.Error(), "must encode as a JSON object") {
			t.Errorf("profile %#v: got %v", p, err)
		}
	}
	if _, err := (Options{Denials: true, Sandbox: "/nonexistent"}).Start(map[string]any{"denials": nil}, []string{"true"}, nil, nil); err == nil {
		t.Errorf("Start with a profile naming denials: no error")
	}
}
