# Common part of the hostile-target tests (sourced after tests/lib.sh).
# pscope runs as root; the hostile side is nobody, in a directory nobody
# owns. Every case ends with the same four checks (hostile_end): pscope
# exited cleanly or refused with a message, the target is neither stopped
# nor traced, no root-owned file changed, no temporary file is left.

if ! command -v setpriv >/dev/null || [ "$(id -u)" != 0 ]; then
	skip "needs root and setpriv to run the hostile side as nobody"
	done_testing
	exit 0
fi

AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
# The hostile user's directory (nobody's, under a 755 one of root's).
HBASE=$(mktemp -d /tmp/pscope-hostile.XXXXXX)
chmod 755 "$HBASE"
at_exit "rm -rf $HBASE"
HD=$HBASE/home
mkdir "$HD" && chown nobody:nogroup "$HD"
# A directory like /tmp (root's, anyone writes, sticky): checked too.
HS=$HBASE/shared
mkdir -m 1777 "$HS"
# pscope's scratch files go here: checked empty at every end.
export TMPDIR=$HBASE/tmp
mkdir -m 1777 "$TMPDIR"
# Files of root's the hostile side will aim at: their sums are checked at
# every end.
ROOTF=$HBASE/root-owned
mkdir "$ROOTF"
for f in secret report.md core; do
	echo "root's $f, not to be touched" >"$ROOTF/$f"
done
chmod 644 "$ROOTF"/*
_root_sums=$(cd "$ROOTF" && ls -l --time-style=full-iso && sha256sum ./*)

# Start TARGET as nobody (a copy owned by nobody in $HD): sets HPID; its
# output goes to $HD/NAME.out.
hostile_start() { # hostile_start NAME ARGS...
	local name=$1 out
	shift
	out=$HD/$name.out
	$AS_NOBODY "$@" >"$out" 2>&1 &
	HPID=$!
	kill_at_exit "$HPID"
	poll 100 grep -q ready "$out" || { diag "$name did not get ready:"; sed 's/^/#   /' "$out"; return 1; }
}

# Run pscope with a time cap; sets RC and leaves stderr in $HBASE/err.
hpscope() { # hpscope ARGS...
	timeout 300 "$PSCOPE" "$@" 2>"$HBASE/err"
	RC=$?
}

# Exited cleanly (0), or refused (1) with a message of pscope's; never a
# signal, a time-out or a sanitizer report.
_clean_exit() {
	if grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$HBASE/err"; then
		sed 's/^/#   /' "$HBASE/err" | head -20
		return 1
	fi
	[ "$RC" = 0 ] && return 0
	[ "$RC" = 1 ] && grep -q '^pscope' "$HBASE/err" && return 0
	diag "exit status $RC:"; sed 's/^/#   /' "$HBASE/err" | head -5
	return 1
}

_no_temp_left() {
	local left
	left=$(find "$HD" "$HS" "$ROOTF" \( -name '.pscope*' -o -name 'pscope-*' \) 2>/dev/null | head -3)
	left=$left$(find "$TMPDIR" -mindepth 1 2>/dev/null | head -3)
	[ -z "$left" ] || { diag "left behind: $left"; return 1; }
}

_root_unchanged() {
	[ "$(cd "$ROOTF" && ls -l --time-style=full-iso && sha256sum ./*)" = "$_root_sums" ]
}

# The four checks that end every case (TARGET_PID may be empty: none).
hostile_end() { # hostile_end CASE [TARGET_PID]
	check "$1: pscope exited cleanly or refused with a message" _clean_exit
	if [ -n "${2:-}" ]; then
		check "$1: the target is not stopped or traced" runs_on_soon "$2"
	fi
	check "$1: no root-owned file changed" _root_unchanged
	check "$1: no temporary file left" _no_temp_left
}
