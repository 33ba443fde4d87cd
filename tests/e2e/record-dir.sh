#!/bin/sh
# pscope record -o DIR: day files rotated at local midnight (the --now
# test hook starts the recorder's clock two seconds before it), --keep and
# --max-size removing only pscope's own day files, oldest first and never
# the open one; pscope record --check DIR exactly, text and JSON, on a
# fixture directory.
. "$top_srcdir/tests/lib.sh"
T=$_tlinks
F=$top_srcdir/tests/fixtures/record
export TZ=UTC

# ---- rotation at midnight
mkdir "$T/rot"
"$PSCOPE" record -o "$T/rot" --interval 0.5 --duration 4 --now "2026-12-04 23:59:58" >"$T/rot.out" 2>"$T/rot.err"
ok $? "record -o DIR across midnight"
check "the first day's file" test -f "$T/rot/pscope-20261204.rec"
check "the next day's file" test -f "$T/rot/pscope-20261205.rec"
check "stderr says the day's file was closed" grep -q '^pscope record: pscope-20261204.rec closed ([0-9]* intervals*, ' "$T/rot.err"
check "stderr names the new day's file" grep -q "^pscope record: a new day: into .*/pscope-20261205.rec$" "$T/rot.err"
"$PSCOPE" record --check "$T/rot" --json >"$T/rot.json"
ok $? "--check --json on it"
check "each file holds its own day only, both closed" jq -e '
	(.files | length) == 2 and all(.files[]; .closed and .intervals >= 1 and .torn == null)
	and (.files[0].to | startswith("2026-12-04 23:59:5"))
	and (.files[1].from | startswith("2026-12-05 00:00:0"))' "$T/rot.json"
"$PSCOPE" list -r "$T/rot/pscope-20261205.rec" >/dev/null 2>"$T/rot.list.err"
ok $? "the new day's file replays"
check "without a word on stderr" test ! -s "$T/rot.list.err"

# ---- --keep: only pscope's day files, by name, owner and kind
mkdir "$T/keep"
for d in 20261120 20261127 20261128; do cp "$F/sleep.rec" "$T/keep/pscope-$d.rec"; done
cp "$F/sleep.rec" "$T/keep/pscope-20261121.rec" && chown nobody "$T/keep/pscope-20261121.rec"
cp "$F/sleep.rec" "$T/keep/other-20261120.rec"
cp "$F/sleep.rec" "$T/keep/target" && ln -s target "$T/keep/pscope-20261119.rec"
mkdir "$T/keep/pscope-20261118.rec"
"$PSCOPE" record -o "$T/keep" --interval 0.5 --duration 1 --keep 7 --now "2026-12-04 12:00:00" 2>"$T/keep.err"
ok $? "record -o DIR --keep 7"
check "7 days old: removed" test ! -e "$T/keep/pscope-20261127.rec"
check "older: removed" test ! -e "$T/keep/pscope-20261120.rec"
check "6 days old: kept" test -f "$T/keep/pscope-20261128.rec"
check "another user's day file: kept" test -f "$T/keep/pscope-20261121.rec"
check "another name: kept" test -f "$T/keep/other-20261120.rec"
check "a link so named: kept, and what it points to" test -L "$T/keep/pscope-20261119.rec" -a -f "$T/keep/target"
check "a directory so named: kept" test -d "$T/keep/pscope-20261118.rec"
check "today's file written" test -f "$T/keep/pscope-20261204.rec"
check "each removal said, oldest first" sh -c "grep '^pscope record: removed' '$T/keep.err' | sed 's/ (.*//' | tr '\n' ' ' | grep -qx 'pscope record: removed pscope-20261120.rec pscope record: removed pscope-20261127.rec '"

# ---- a second start the same day: a new file, the day's not appended to
"$PSCOPE" record -o "$T/keep" --interval 0.5 --duration 1 --now "2026-12-04 13:00:00" 2>"$T/again.err"
ok $? "record again the same day"
check "into pscope-20261204-2.rec" test -f "$T/keep/pscope-20261204-2.rec"

# ---- --max-size: the oldest first, never the open file, only pscope's
mkdir "$T/cap"
for d in 20261201 20261202 20261203; do cp "$F/sleep.rec" "$T/cap/pscope-$d.rec"; done
cp "$F/sleep.rec" "$T/cap/pscope-20261130.rec" && chown nobody "$T/cap/pscope-20261130.rec"
cp "$F/sleep.rec" "$T/cap/pscope-20261129.rec.bak"
"$PSCOPE" record -o "$T/cap" --interval 0.5 --duration 1 --max-size 1G --now "2026-12-04 12:00:00" 2>"$T/cap1.err"
ok $? "record -o DIR --max-size 1G"
check "under the cap: nothing removed" test -f "$T/cap/pscope-20261201.rec" -a -f "$T/cap/pscope-20261203.rec"
"$PSCOPE" record -o "$T/cap" --interval 0.5 --duration 1 --max-size 4K --now "2026-12-04 12:00:00" 2>"$T/cap2.err"
ok $? "record -o DIR --max-size 4K"
check "over it: the older day files removed, oldest first" sh -c "grep '^pscope record: removed' '$T/cap2.err' | sed 's/ (.*//;s/.* //' | tr '\n' ' ' | grep -qx 'pscope-20261201.rec pscope-20261202.rec pscope-20261203.rec pscope-20261204.rec '"
check "the open file kept, and said to be over" sh -c "test -f '$T/cap/pscope-20261204-2.rec' && grep -q 'alone is over --max-size' '$T/cap2.err'"
check "another user's day file: kept" test -f "$T/cap/pscope-20261130.rec"
check "another name: kept" test -f "$T/cap/pscope-20261129.rec.bak"
"$PSCOPE" record -o "$T/rot/pscope-20261204.rec" --keep 3 --duration 1 2>"$T/keepfile.err"
check "--keep with a file: a usage error" test $? = 2
check "  saying so" grep -q -- '--keep goes with -o DIR' "$T/keepfile.err"

# ---- as another user: its own day files removed, root's left alone
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod go+x "$T" && mkdir "$T/user" && chmod 755 "$T/user"
	cp "$F/sleep.rec" "$T/user/pscope-20261101.rec"
	cp "$F/sleep.rec" "$T/user/pscope-20261102.rec"
	chown nobody "$T/user" "$T/user/pscope-20261102.rec"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$PSCOPE" record -o "$T/user" --interval 0.5 --duration 1 --keep 7 --now "2026-12-04 12:00:00" 2>"$T/user.err"
	ok $? "as nobody: record -o DIR --keep 7"
	check "  its own old day file removed" test ! -e "$T/user/pscope-20261102.rec"
	check "  root's left alone" test -f "$T/user/pscope-20261101.rec"
	check "  today's written, nobody's" sh -c "test \"\$(stat -c %U '$T/user/pscope-20261204.rec')\" = nobody"
else
	skip "not root: the other-user removal test needs setpriv as root"
fi

# ---- --check on a fixture directory, exactly
mkdir "$T/fix"
cp "$F/sleep.rec" "$T/fix/pscope-20261203.rec"
cp "$F/sleep2.rec" "$T/fix/pscope-20261204.rec"
head -c 650 "$F/sleep2.rec" >"$T/fix/pscope-20261204-2.rec"
cp "$F/sleep.rec" "$T/fix/notes.rec"
cp "$F/sleep.rec" "$T/fix/pscope-2026120.rec"
"$PSCOPE" record --check "$T/fix" --max-size 1M >"$T/check.txt" 2>"$T/check.err"
ok $? "--check DIR"
cat >"$T/want.txt" <<'TXT'
DIR: 3 day files, 2.7K of --max-size 1.0M (0%)
DAY         FROM                 TO                   INTERVALS      SIZE  FILE
2026-12-03  2026-12-04 02:11:39  2026-12-04 02:11:40          6      1.4K  pscope-20261203.rec
2026-12-04  2026-12-04 19:06:52  2026-12-04 19:06:52          2      674B  pscope-20261204.rec
2026-12-04  2026-12-04 19:06:52  2026-12-04 19:06:52          2      650B  pscope-20261204-2.rec
  torn tail: 88 bytes at offset 562 skipped
TXT
sed "s|^$T/fix:|DIR:|" "$T/check.txt" >"$T/got.txt"
check "--check text, exactly" diff -u "$T/want.txt" "$T/got.txt"
"$PSCOPE" record --check "$T/fix" --json >"$T/check.json"
ok $? "--check DIR --json"
cat >"$T/want.json" <<'TXT'
{"dir":"DIR","files":[{"file":"pscope-20261203.rec","day":"2026-12-03","size":1421,"from":"2026-12-04 02:11:39","to":"2026-12-04 02:11:40","intervals":6,"closed":true,"torn":null},{"file":"pscope-20261204.rec","day":"2026-12-04","size":674,"from":"2026-12-04 19:06:52","to":"2026-12-04 19:06:52","intervals":2,"closed":true,"torn":null},{"file":"pscope-20261204-2.rec","day":"2026-12-04","size":650,"from":"2026-12-04 19:06:52","to":"2026-12-04 19:06:52","intervals":2,"closed":false,"torn":{"offset":562,"length":88}}],"total":2745,"max_size":null}
TXT
jq -c --arg d "$T/fix" '.dir |= (if . == $d then "DIR" else . end) | .files[] |= del(.from_wall, .to_wall)' "$T/check.json" >"$T/got.json"
check "--check JSON, exactly" diff -u "$T/want.json" "$T/got.json"
check "the walls are the times shown" jq -e '.files[0].from_wall | floor == 1796350299' "$T/check.json"
echo x >"$T/fix/pscope-20261205.rec"
"$PSCOPE" record --check "$T/fix" >"$T/bad.txt" 2>&1
check "an unreadable day file: status 1" test $? = 1
check "  named, with the offset" grep -q "^  unreadable: .*pscope-20261205.rec: offset 0: not a pscope recording" "$T/bad.txt"
"$PSCOPE" record --check "$T/nothere" >/dev/null 2>"$T/nothere.err"
check "a missing directory: status 1" test $? = 1
check "  named" grep -q "nothere" "$T/nothere.err"
done_testing
