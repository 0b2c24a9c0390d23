#!/usr/bin/env bash
# The Go module (make packages → build/packages/go/sandbox, and the same as
# a file module proxy, build/packages/goproxy) used offline from a fresh
# module: `go get` through GOPROXY=file://… (GOFLAGS=-mod=mod, no network),
# its own tests (*SandboxError and errors.Is for 125/126/127, Check, Probe),
# then a program built with -tags sandbox_embed (the binary embedded, no
# SANDBOX, no PATH entry) drives the real MCP filesystem server over stdio
# (initialize, list_directory, a refused read of a hidden key, stdout only
# frames).  The embedded file follows GOARCH (a fake arm64 binary proves
# it).  Options{Denials, OnDenial} give the denial report (common.sh's
# check_denials and check_recorded).  As root and as uid 65534; skipped
# without a Go toolchain.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
GO=$(command -v go || true)
if [ -z "$GO" ]; then skip "no Go toolchain (apt-get install golang-go; scripts/setup does)"; done_testing; exit; fi
build_packages
G=$T/gohome
mkdir -p "$G"
export HOME=$G GOCACHE=$G/cache GOPATH=$G/path GOFLAGS=-mod=mod GOPROXY=file://$PK/goproxy GOSUMDB=off GOTOOLCHAIN=local
MOD=$(sed -n 's/^module //p' "$PK/go/sandbox/go.mod")
check "the module directory holds a binary per architecture" "$(sum "$SB") $(sum "$FAKE_ARM")" \
	"$(sum "$PK/go/sandbox/bin/linux-amd64/__sandbox") $(sum "$PK/go/sandbox/bin/linux-arm64/__sandbox")"
check "the embedded file follows GOARCH (amd64, arm64)" "[bin/linux-amd64/__sandbox] [bin/linux-arm64/__sandbox] []" \
	"$(cd "$PK/go/sandbox" && for a in amd64 arm64; do GOARCH=$a "$GO" list -tags sandbox_embed -f '{{.EmbedFiles}}' .; done | paste -sd' ') $(cd "$PK/go/sandbox" && "$GO" list -f '{{.EmbedFiles}}' .)"

P=$T/goproj
mkdir -p "$P"
printf 'module example.com/consumer\n\ngo 1.19\n' >"$P/go.mod"
cat >"$P/main.go" <<'GO'
// An MCP client through the sandbox package: PROFILE SERVER DIR KEY.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"sandbox-shim.invalid/sandbox"
)

func main() {
	var profile map[string]any
	if err := json.Unmarshal([]byte(os.Args[1]), &profile); err != nil {
		panic(err)
	}
	server, dir, key := os.Args[2], os.Args[3], os.Args[4]
	stdinR, stdinW, _ := os.Pipe()
	stdoutR, stdoutW, _ := os.Pipe()
	p, err := sandbox.Start(profile, []string{"/usr/bin/node", server, dir}, stdinR, stdoutW)
	if err != nil {
		fmt.Println("start", err)
		os.Exit(1)
	}
	stdinR.Close()
	stdoutW.Close()
	frames, dirty := 0, ""
	rd := bufio.NewReader(stdoutR)
	call := func(id int, method string, params any) map[string]any {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		stdinW.Write(append(b, '\n'))
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				fmt.Println("eof", err)
				os.Exit(1)
			}
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) != nil || m["jsonrpc"] != "2.0" {
				if dirty == "" {
					dirty = line
				}
				continue
			}
			frames++
			if m["id"] == float64(id) {
				return m
			}
		}
	}
	text := func(m map[string]any) string {
		r := m["result"].(map[string]any)
		var parts []string
		for _, c := range r["content"].([]any) {
			parts = append(parts, fmt.Sprint(c.(map[string]any)["text"]))
		}
		kind := "ok "
		if r["isError"] == true {
			kind = "error "
		}
		return kind + strings.ReplaceAll(strings.Join(parts, " "), "\n", " ")
	}
	init := call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	fmt.Println("init", init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"])
	stdinW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	fmt.Println("list", text(call(2, "tools/call", map[string]any{"name": "list_directory", "arguments": map[string]any{"path": dir}})))
	fmt.Println("hidden", text(call(3, "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": key}})))
	stdinW.Close()
	for {
		line, err := rd.ReadString('\n')
		if line != "" {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) != nil || m["jsonrpc"] != "2.0" {
				if dirty == "" {
					dirty = line
				}
			} else {
				frames++
			}
		}
		if err != nil {
			break
		}
	}
	state := "clean"
	if dirty != "" {
		state = "dirty " + dirty
	}
	fmt.Println("frames", frames, state)
	if err := p.Wait(); err != nil {
		fmt.Println("exit", err)
	} else {
		fmt.Println("exit 0")
	}
}
GO
if (cd "$P" && "$GO" get "$MOD@v$("$SB" --version | sed -n '1s/^__sandbox //p')" >"$T/get.out" 2>&1); then
	ok "go get of the module through the file proxy, offline"
else
	not_ok "go get of the module through the file proxy, offline"; diag "$(cat "$T/get.out")"; done_testing; exit
fi
chmod -R a+rX "$G"
ws=$(mkws root gotest)
if (cd "$G/path/pkg/mod/$MOD@"* && SANDBOX="$SB" SB_WORKSPACE="$ws" "$GO" test -v -count=1 . >"$T/test.out" 2>&1); then
	ok "the module's go test: *SandboxError matching ErrRefused, ErrNotExecutable, ErrNotFound; Check; Probe"
else
	not_ok "the module's go test"; diag "$(cat "$T/test.out")"
fi
grep -q -- '--- SKIP' "$T/test.out" && { not_ok "go test skipped nothing"; diag "$(cat "$T/test.out")"; }
if (cd "$P" && "$GO" build -tags sandbox_embed -o "$T/bin/consumer" . >"$T/build.out" 2>&1); then
	ok "a program embedding the binary builds (-tags sandbox_embed)"
else
	not_ok "a program embedding the binary builds (-tags sandbox_embed)"; diag "$(cat "$T/build.out")"; done_testing; exit
fi
for who in $USERS; do
	mcp_fixture "$who"
	gh=$(mkws "$who" gocache)
	# no SANDBOX, no __sandbox on PATH: the embedded binary, written to the user's cache
	res=$(as "$who" env -u SANDBOX PATH=/usr/bin:/bin HOME="$gh" XDG_CACHE_HOME="$gh/.cache" \
		timeout 60 "$T/bin/consumer" "$PROFILE" "$FS_SERVER" "$WS" "$HOMEDIR/.ssh/id_ed25519" 2>"$T/err")
	check_mcp "$who" "go (embedded binary)" "$res"
	check "$who: the embedded binary was written once, 0755, same bytes" "755 $(sum "$SB")" \
		"$(stat -c %a "$gh"/.cache/sandbox-shim/*/__sandbox) $(sum "$gh"/.cache/sandbox-shim/*/__sandbox)"
	res=$(as "$who" env -u SANDBOX PATH=/usr/bin:/bin HOME="$gh" XDG_CACHE_HOME="$gh/.cache" \
		timeout 60 "$T/bin/consumer" "$PROFILE" "$FS_SERVER" / "$HOMEDIR/.ssh/id_ed25519" 2>/dev/null)
	check_match "$who: with / allowed by the server, the hidden key is still refused by the kernel" '^hidden error ' "$res"
done
# the denial report through the API: Options{Denials: true}, OnDenial,
# Process.Denials after Wait
mkdir -p "$P/denials"
cat >"$P/denials/main.go" <<'GO'
// MODE WS FOUR MANY [RECORDER WITH]: the report through the sandbox package.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"

	"sandbox-shim.invalid/sandbox"
)

func main() {
	mode, ws, four, many := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	profile := map[string]any{"writable": []string{ws}}
	before, _ := json.Marshal(profile)
	if mode == "record" {
		p, err := sandbox.Options{Sandbox: os.Args[5], Denials: os.Args[6] == "1"}.Start(profile, []string{"true"}, nil, nil)
		if err == nil {
			err = p.Wait()
		}
		fmt.Println(err)
		return
	}
	var mu sync.Mutex
	var followed []sandbox.Denial
	var seen bytes.Buffer
	p, err := sandbox.Options{OnDenial: func(d sandbox.Denial) {
		mu.Lock()
		followed = append(followed, d)
		mu.Unlock()
	}}.Start(profile, []string{"/bin/sh", "-c", four, ws}, nil, &seen)
	if err != nil {
		fmt.Println("start", err)
		os.Exit(1)
	}
	werr := p.Wait()
	var names, errs []string
	for _, d := range followed {
		names = append(names, d.Syscall)
	}
	for _, d := range p.Denials() {
		errs = append(errs, d.Error)
	}
	fmt.Println("follow", strings.Join(names, " "))
	fmt.Println("list", strings.Join(errs, " "))
	fmt.Println("seen", strings.Join(strings.Fields(seen.String()), " "))
	after, _ := json.Marshal(profile)
	fmt.Println("same", bytes.Equal(before, after) && reflect.DeepEqual(followed, p.Denials()) && werr == nil)
	m, err := sandbox.Options{Denials: true}.Start(profile, []string{"/usr/bin/python3", "-c", many}, nil, nil)
	if err != nil {
		fmt.Println("start", err)
		os.Exit(1)
	}
	code := 0
	var exit *exec.ExitError
	if err := m.Wait(); errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		code = -1
	}
	calls, dropped, other := 0, 0, 0
	for _, d := range m.Denials() {
		switch {
		case d.Syscall == "io_uring_setup":
			calls++
		case d.Dropped > 0:
			dropped += d.Dropped
		default:
			other++
		}
	}
	fmt.Println("many", calls, dropped, other, "exit", code)
	n, err := sandbox.Start(profile, []string{"/bin/true"}, nil, nil)
	if err == nil {
		err = n.Wait()
	}
	if err == nil && n.Denials() == nil {
		fmt.Println("without none")
	} else {
		fmt.Println("without", err, n.Denials())
	}
	if _, err := (sandbox.Options{Denials: true}).Start(map[string]any{"writable": []string{ws}, "denials": map[string]int{"fd": 9}},
		[]string{"/bin/true"}, nil, nil); err != nil {
		fmt.Println("twice", err)
	} else {
		fmt.Println("twice ran")
	}
}
GO
if (cd "$P" && "$GO" build -tags sandbox_embed -o "$T/bin/denials" ./denials >"$T/build.out" 2>&1); then
	ok "a program reading the denial report builds"
else
	not_ok "a program reading the denial report builds"; diag "$(cat "$T/build.out")"; done_testing; exit
fi
for who in $USERS; do
	denial_fixture "$who"
	gh=$(mkws "$who" gocache-denials)
	res=$(as "$who" env -u SANDBOX PATH=/usr/bin:/bin HOME="$gh" XDG_CACHE_HOME="$gh/.cache" \
		timeout 120 "$T/bin/denials" run "$DWS" "$FOUR" "$MANY" 2>"$T/err")
	check_denials "$who" "go" "$res"
	check "$who: go: nothing but notices on stderr" "" "$(grep -v -e '^__sandbox: notice: ' "$T/err")"
	for with in 1 0; do
		as "$who" env HOME="$gh" XDG_CACHE_HOME="$gh/.cache" "$T/bin/denials" record "$DWS" "" "" "$REC_SB" "$with" >/dev/null 2>&1
		check_recorded "$who" go "$with"
	done
done
done_testing
