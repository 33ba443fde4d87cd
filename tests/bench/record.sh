#!/bin/sh
# Recorder benchmark: pscope record and atop -w side by side (same moment,
# same 10 s interval, same ~300 processes) for RECORD_BENCH_SECONDS (60).
# Prints each one's file size per hour at that interval (extrapolated from
# the intervals written: for pscope its key and delta frames in the
# proportion an hour has, one key every 60), its CPU as a share of one
# core, and the ratios. Goals (issue 28): <= 1.5 MB an hour for 300
# processes, and less CPU than atop. Without atop (apt-get install atop)
# its half says SKIP.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
WANT=${RECORD_BENCH_PROCS:-300}
DUR=${RECORD_BENCH_SECONDS:-60}
IV=10

tmp=$(mktemp -d /tmp/pscope-bench-record.XXXXXX)
fpid=
rpid=
apid=
cleanup() {
	for p in $rpid $apid; do kill -KILL "$p" 2>/dev/null; done
	if [ -n "$fpid" ]; then
		{ kill -KILL "-$fpid"; wait "$fpid"; } 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

have=$(ls /proc | grep -c '^[0-9]')
n=$((WANT - have))
if [ $n -gt 0 ]; then
	setsid "$TARGETS/family" "$n" >"$tmp/family.out" 2>&1 &
	fpid=$!
	i=0
	until grep -q ready "$tmp/family.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 600 ] && { echo "record bench: $n processes did not start"; exit 1; }
		sleep 0.1
	done
fi
echo "processes on the machine: $(ls /proc | grep -c '^[0-9]') (goal's load: $WANT); ${DUR} s at a ${IV} s interval"

cpu_s() { # CPU seconds of a process so far
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.4f", ($12 + $13) / hz }' "/proc/$1/stat"
}

"$PSCOPE" record -o "$tmp/p.psrec" --interval $IV 2>"$tmp/p.err" &
rpid=$!
if command -v atop >/dev/null; then
	# one sample more than the run: still there when its CPU is read, then
	# killed (it writes each sample whole as it goes; SIGINT does not stop it)
	atop -w "$tmp/a.raw" $IV $((DUR / IV + 2)) >/dev/null 2>"$tmp/a.err" &
	apid=$!
fi
sleep "$DUR"
pcpu=$(cpu_s $rpid)
acpu=
[ -n "$apid" ] && acpu=$(cpu_s $apid)
kill -INT $rpid
wait $rpid
rpid=
[ -n "$apid" ] && { kill -KILL $apid; wait $apid 2>/dev/null; apid=; }

# pscope: the frames' sizes from their headers (doc/record-format.md).
python3 - "$tmp/p.psrec" "$pcpu" "$DUR" "$IV" >"$tmp/p.txt" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(); cpu, dur, iv = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
off = struct.unpack_from('<I', d, 12)[0]; keys = []; deltas = []
while off + 40 <= len(d) and struct.unpack_from('<I', d, off)[0] == 0x52465350:
    t = d[off + 4]; n = 40 + struct.unpack_from('<I', d, off + 24)[0]
    (keys if t == 1 else deltas if t == 2 else []).append(n); off += n
per_h = 3600 / iv
k = sum(keys) / len(keys); dl = sum(deltas) / len(deltas) if deltas else k
size_h = k * per_h / 60 + dl * per_h * 59 / 60
print("%d %d %.0f %.0f %.4f" % (len(keys), len(deltas), k, dl, size_h / 1e6), cpu / dur * 100)
PY
read -r nk nd ksz dsz pmb pcpu_pct <"$tmp/p.txt"
printf 'pscope record: %s key + %s delta intervals (%s and %s bytes each): %.2f MB/h; CPU %.3f%% of a core\n' \
	"$nk" "$nd" "$ksz" "$dsz" "$pmb" "$pcpu_pct"
awk -v m="$pmb" 'BEGIN { printf "size goal (<= 1.5 MB/h for 300 processes): %s\n", m <= 1.5 ? "met" : "NOT met" }'
if [ -z "$acpu" ]; then
	echo "atop: SKIP (not installed: apt-get install atop)"
	exit 0
fi
asize=$(stat -c %s "$tmp/a.raw")
asamples=$(atop -r "$tmp/a.raw" -P CPU 2>/dev/null | grep -c '^CPU ')
awk -v s="$asize" -v n="$asamples" -v c="$acpu" -v d="$DUR" -v iv=$IV -v pm="$pmb" -v pc="$pcpu_pct" 'BEGIN {
	if (n < 1) n = 1
	am = s / n * 3600 / iv / 1e6; ac = c / d * 100
	printf "atop -w:       %d samples, %.0f bytes each: %.2f MB/h; CPU %.3f%% of a core\n", n, s / n, am, ac
	printf "ratio pscope/atop: size %.2fx, CPU %.2fx (%s)\n", pm / am, (ac > 0 ? pc / ac : 0), pc <= ac ? "less CPU than atop" : "MORE CPU than atop"
}'
