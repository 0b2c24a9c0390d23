#!/usr/bin/env bash
# hidden inside a readable tree (issue 3), both carve modes, root and nobody:
# a fake home with .ssh/id_ed25519, .netrc and .bashrc, .ssh and .netrc
# hidden.
#  - mounts: .ssh is an empty read-only directory (ls shows nothing, the key
#    is not there: ENOENT), .netrc an empty mode-0000 file (EACCES);
#  - expansion: no rule reaches .ssh or .netrc, so reading fails (EACCES);
#    documented: the names stay listable — Landlock's read_dir on the home
#    (needed to list it) covers its whole subtree, .ssh included — while
#    the contents are not readable;
#  - the sibling .bashrc stays readable in both; nothing can be written in
#    the hidden directory;
#  - a hidden file inside the writable workspace is neither readable nor
#    writable nor removable;
#  - a hidden name that does not exist (.pgpass in the workspace) gets no
#    placeholder (issue 9): with mounts a notice says it is not protected
#    against creation, the command can create it and the next run hides
#    it; with expansion it cannot be created (EACCES).
# Controls: the same reads and listing work outside, and with the path not
# hidden.
. "$(dirname "$0")/common.sh"

for who in $USERS; do
	for mode in $MODES; do
		t=$who/$mode
		mode_guard "$who" "$mode" || continue
		mk=$(mode_keys "$mode")
		ws=$(mkws "$who" "hid-ws-$mode")
		home=$(mkws "$who" "hid-home-$mode")
		mkdir -p "$home/.ssh"
		echo KEY >"$home/.ssh/id_ed25519"
		echo "machine example.invalid password PW" >"$home/.netrc"
		echo BASHRC >"$home/.bashrc"
		own "$who" "$home"
		p="{$mk\"writable\":[\"$ws\"],\"hidden\":[\"$home/.ssh\",\"$home/.netrc\"]}"
		plain="{$mk\"writable\":[\"$ws\"]}"
		check "$t: the plan carves by $mode" "$mode" "$(carve_of "$who" "$p")"

		expect "$t: control: the key is readable outside" ok:KEY "$(outside "$who" read "$home/.ssh/id_ed25519")"
		expect "$t: control: .netrc is readable outside" "ok:machine example.invalid password PW" "$(outside "$who" read "$home/.netrc")"
		expect "$t: control: ls .ssh outside shows the key" id_ed25519 "$(outside "$who" list "$home/.ssh")"
		expect "$t: control: the key is readable inside when not hidden" ok:KEY "$(op "$who" "$plain" read "$home/.ssh/id_ed25519")"
		expect "$t: control: .netrc is readable inside when not hidden" "ok:machine example.invalid password PW" "$(op "$who" "$plain" read "$home/.netrc")"

		sbsh "$who" "$p" "cat '$home/.ssh/id_ed25519' '$home/.netrc'"
		check "$t: cat of the key and .netrc prints nothing and fails" "1 " "$rc $out"
		expect "$t: the sibling .bashrc stays readable" ok:BASHRC "$(op "$who" "$p" read "$home/.bashrc")"
		expect "$t: the home lists its entries" ".bashrc .netrc .ssh" "$(op "$who" "$p" list "$home")"
		expect "$t: .netrc cannot be read" EACCES "$(op "$who" "$p" read "$home/.netrc")"
		if [ "$mode" = mounts ]; then
			expect "$t: the key is not there (empty directory over .ssh)" ENOENT "$(op "$who" "$p" read "$home/.ssh/id_ed25519")"
			expect "$t: ls of .ssh shows nothing" "(empty)" "$(op "$who" "$p" list "$home/.ssh")"
			sbsh "$who" "$p" "ls -A '$home/.ssh' | wc -l; stat -c %s '$home/.netrc'"
			check "$t: ls -A .ssh counts 0 entries, .netrc has size 0" "0
0" "$out"
			expect "$t: nothing can be created in .ssh" EROFS "$(op "$who" "$p" create "$home/.ssh/authorized_keys")"
		else
			expect "$t: the key cannot be read" EACCES "$(op "$who" "$p" read "$home/.ssh/id_ed25519")"
			# documented expansion behaviour: names listable, contents not
			expect "$t: ls of .ssh still shows the names (documented)" id_ed25519 "$(op "$who" "$p" list "$home/.ssh")"
			expect "$t: nothing can be created in .ssh" EACCES "$(op "$who" "$p" create "$home/.ssh/authorized_keys")"
		fi
		check "$t: the key is intact outside" KEY "$(cat "$home/.ssh/id_ed25519")"

		# hidden inside the writable workspace: unreadable and unwritable
		echo SECRET >"$ws/secret.txt"
		own "$who" "$ws/secret.txt"
		ph="{$mk\"writable\":[\"$ws\"],\"hidden\":[\"$ws/secret.txt\"]}"
		expect "$t: control: a workspace file is readable when not hidden" ok:SECRET "$(op "$who" "$plain" read "$ws/secret.txt")"
		expect "$t: a hidden file in the workspace cannot be read" EACCES "$(op "$who" "$ph" read "$ws/secret.txt")"
		# (with mounts the cover is a mode-0000 file: EACCES comes first)
		expect "$t: ... nor overwritten" EACCES "$(op "$who" "$ph" append "$ws/secret.txt" x)"
		expect "$t: ... nor removed" "$([ "$mode" = mounts ] && echo EBUSY || echo EACCES)" "$(op "$who" "$ph" unlink "$ws/secret.txt")"
		check "$t: ... and it is intact" SECRET "$(cat "$ws/secret.txt")"

		# a hidden name that does not exist: no placeholder
		pm="{$mk\"writable\":[\"$ws\"],\"hidden\":[\"$ws/.pgpass\"]}"
		as "$who" "$SB" "$pm" -- /bin/true 2>"$T/err"
		check "$t: a missing hidden name gets no placeholder" absent "$([ -e "$ws/.pgpass" ] && echo present || echo absent)"
		if [ "$mode" = mounts ]; then
			check "$t: ... a notice says it is not protected against creation" \
				"__sandbox: notice: .hidden[0] \"$ws/.pgpass\": does not exist, so it is not protected against creation (nothing is created to hold a mount); created during the run, by the host too, it is readable inside" \
				"$(grep -F '.hidden[0]' "$T/err")"
			expect "$t: ... the command can create it" ok "$(op "$who" "$pm" write "$ws/.pgpass")"
			check "$t: ... it is there outside" x "$(cat "$ws/.pgpass" 2>&1)"
			expect "$t: ... once it exists, the next run cannot read it" EACCES "$(op "$who" "$pm" read "$ws/.pgpass")"
			expect "$t: ... nor overwrite it" EACCES "$(op "$who" "$pm" append "$ws/.pgpass" y)"
			check "$t: ... and no notice is printed any more" "" "$(grep -F '.hidden[0]' "$T/err")"
			check "$t: ... it is intact" x "$(cat "$ws/.pgpass" 2>&1)"
		else
			expect "$t: ... it cannot be created (expansion: no new entries in the workspace)" EACCES "$(op "$who" "$pm" write "$ws/.pgpass")"
			check_match "$t: ... the notice names the workspace" "new entries cannot be created directly in (.*, )?$ws(,|$)" "$(errs)"
			check "$t: ... nothing is there outside" absent "$([ -e "$ws/.pgpass" ] && echo present || echo absent)"
		fi
		expect "$t: control: .pgpass can be created when not hidden" ok "$(op "$who" "$plain" write "$ws/.pgpass2")"
	done
done

done_testing
