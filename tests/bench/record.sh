#!/bin/sh
# Recording size: pscope record and atop side by side, both at a 10 s
# interval, for RECORD_BENCH_SAMPLES samples (default 13: two minutes),
# in two places at once:
#
#  - "300 processes": a new PID namespace holding exactly
#    RECORD_BENCH_PROCS processes (default 300): the family target's
#    sleeping children, and a few that wake every second and burn a
#    little CPU, so that the counters of some rows move every interval.
#    This is the goal's workload: <= 1.5 MB an hour for pscope, and less
#    than atop's. (Exits cannot be listened to from inside a PID
#    namespace: pscope records no short-lived processes there; atop's
#    process accounting still sees the whole machine's.)
#  - "the machine": every process of the machine as it is, the
#    short-lived ones recorded (as root). On a machine that starts and
#    ends hundreds of processes a second they are most of each interval:
#    the bench says how many there were.
#
# pscope's hour is made of what was measured: a key frame every K frames
# (the first frame's size; K from the file's header) and deltas (the
# mean of the others), 360 frames an hour; atop's is its file size per
# sample times 360.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
S=${RECORD_BENCH_SAMPLES:-13}
WANT=${RECORD_BENCH_PROCS:-300}

command -v atop >/dev/null || { echo "record bench: atop is not installed (apt-get install atop)"; exit 1; }
command -v jq >/dev/null || { echo "record bench: jq is needed"; exit 1; }
command -v unshare >/dev/null || { echo "record bench: unshare (util-linux) is needed for a PID namespace"; exit 1; }
tmp=$(mktemp -d /tmp/pscope-bench-record.XXXXXX)
nspid= apid= ppid_=
cleanup() {
	for p in $nspid $apid $ppid_; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
PSCOPE=$(readlink -f "$PSCOPE")
TARGETS=$(readlink -f "$TARGETS")

# The namespace: its init (the shell) starts the workload, counts its
# processes until there are WANT, then runs both recorders. Killing the
# init ends everything in it.
unshare --pid --fork --kill-child --mount-proc sh -c '
	cd "$1" || exit 1
	n=$(($4 - 7)) # with this shell, the parent, 3 busy ones, atop and pscope
	"$3/family" "$n" >family.out 2>&1 &
	i=0
	for k in 1 2 3; do
		sh -c "while :; do i=0; while [ \$i -lt 3000 ]; do i=\$((i + 1)); done; sleep 1; done" &
	done
	have() { ls /proc | grep -c "^[0-9]"; }
	until [ "$(have)" -ge $(($4 - 2)) ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && { echo "only $(have) processes started" >ns.fail; exit 1; }
		sleep 0.1
	done
	atop -w ns-atop.raw 10 "$5" >/dev/null 2>&1 &
	a=$!
	"$2" record -o ns-pscope.rec -i 10 -d $(($5 * 10 - 5)) -v 2>ns-pscope.err &
	p=$!
	wait $a $p
	touch ns.done
' sh "$tmp" "$PSCOPE" "$TARGETS" "$WANT" "$S" &
nspid=$!

# The machine, at the same time.
atop -w "$tmp/atop.raw" 10 "$S" >/dev/null 2>&1 &
apid=$!
"$PSCOPE" record -o "$tmp/pscope.rec" -i 10 -d $((S * 10 - 5)) -v 2>"$tmp/pscope.err" &
ppid_=$!
mprocs=$(ls /proc | grep -c '^[0-9]')
wait $apid $ppid_
i=0
until [ -e "$tmp/ns.done" ] || [ -e "$tmp/ns.fail" ]; do
	i=$((i + 1))
	[ $i -gt 1200 ] && { echo "record bench: the namespace's recorders did not end"; exit 1; }
	sleep 0.1
done
[ -e "$tmp/ns.fail" ] && { echo "record bench: in the PID namespace, $(cat "$tmp/ns.fail")"; exit 1; }

# report NAME PSCOPE-ERR PSCOPE-FILE ATOP-FILE
report() {
	frames=$(grep -c written "$2")
	first=$(awk '/interval 1 written/ { print $(NF - 1) }' "$2")
	last=$(awk '/written/ { v = $(NF - 1) } END { print v }' "$2")
	k=$(od -An -tu4 -j44 -N4 "$3" | tr -d ' ')
	awk -v name="$1" -v f="$frames" -v first="$first" -v last="$last" -v k="$k" \
		-v ps="$(stat -c %s "$3")" -v as="$(stat -c %s "$4")" -v s="$S" 'BEGIN {
		key = first - 128; delta = f > 1 ? (last - first) / (f - 1) : key
		ph = (key * 360 / k + delta * (360 - 360 / k)) / 1e6
		ah = as / s * 360 / 1e6
		printf "%s:\n", name
		printf "  pscope: %d frames, %d bytes (key frame %d every %d, deltas %.0f each): %.2f MB an hour\n", f, ps, key, k, delta, ph
		printf "  atop:   %d samples, %d bytes (%.0f each): %.2f MB an hour\n", s, as, as / s, ah
		printf "  ratio pscope/atop: %.2f   goal: <= 1.5 MB an hour (%s), below atop (%s)\n", ph / ah,
			ph <= 1.5 ? "met" : "NOT met", ph < ah ? "met" : "NOT met"
	}'
}
echo "$S samples 10 s apart"
nsprocs=$("$PSCOPE" list -r "$tmp/ns-pscope.rec" --json 2>/dev/null | jq '.processes | length')
report "$nsprocs processes (a PID namespace of its own; short-lived ones not recorded there)" \
	"$tmp/ns-pscope.err" "$tmp/ns-pscope.rec" "$tmp/ns-atop.raw"
sl=$("$PSCOPE" list -r "$tmp/pscope.rec" --json 2>/dev/null |
		jq -r 'if .recording.short_lived_recorded then "\(.short_lived | length) short-lived processes in the last interval" else "short-lived processes not recorded" end')
report "the machine: $mprocs processes${sl:+, $sl}" "$tmp/pscope.err" "$tmp/pscope.rec" "$tmp/atop.raw"
