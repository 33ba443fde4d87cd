#!/bin/sh
# Run libFuzzer harnesses: run.sh FUZZ_DIR TOP_SRCDIR LIBFUZZER-OPTION... -- NAME...
# Each starts from its seeds (the "fuzz-seeds:" comment of fuzz-NAME.c,
# under tests/fixtures) and tests/fuzz/corpus/NAME/, copied to a temporary
# corpus (the tree is never written). As many run at once as there are
# CPUs (FUZZ_JOBS to say otherwise); each is deterministic (-seed=1) all
# the same. Prints executions and crashes per harness, in the order given;
# inputs that crash are kept in FUZZ_DIR/artifacts/. Exit 1 when any
# harness crashed.
if [ "$1" = --one ]; then # --one WORK FUZZ_DIR TOP OPTS NAME: one harness, its row in WORK/NAME.row
	work=$2 dir=$3 top=$4 opts=$5 name=$6
	art=$dir/artifacts
	src=$top/tests/fuzz/fuzz-$name.c
	corpus=$work/$name
	mkdir -p "$corpus"
	seeds=$(sed -n 's/.*fuzz-seeds:\(.*\)/\1/p' "$src" | head -1)
	for g in $seeds; do
		for f in "$top"/tests/fixtures/$g; do [ -f "$f" ] && cp "$f" "$corpus/seed-$(basename "$f")"; done
	done
	if [ -d "$top/tests/fuzz/corpus/$name" ]; then
		for f in "$top/tests/fuzz/corpus/$name"/*; do [ -f "$f" ] && cp "$f" "$corpus/corpus-$(basename "$f")"; done
	fi
	nseeds=$(ls "$corpus" | wc -l)
	before=$(ls "$art" | grep -cE "^$name-(crash|leak|timeout|oom)-")
	# shellcheck disable=SC2086
	"$dir/fuzz-$name" $opts -seed=1 -max_len=16384 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art/$name-" "$corpus" >"$work/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | tail -1)
	crashes=$(( $(ls "$art" | grep -cE "^$name-(crash|leak|timeout|oom)-") - before ))
	[ $rc != 0 ] && [ "$crashes" = 0 ] && crashes=1
	printf '%-10s %12s %8s %6s\n' "$name" "${execs:-?}" "$crashes" "$nseeds" >"$work/$name.row"
	echo "${execs:-0} $rc" >"$work/$name.rc"
	exit 0
fi
dir=$1 top=$2
shift 2
opts=
while [ $# -gt 0 ] && [ "$1" != -- ]; do opts="$opts $1"; shift; done
[ "$1" = -- ] && shift
mkdir -p "$dir/artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$@" | xargs -P "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}" -I NAME \
	sh "$0" --one "$work" "$dir" "$top" "$opts" NAME
failed=0
total=0
printf '%-10s %12s %8s %6s\n' HARNESS EXECUTIONS CRASHES SEEDS
for name in "$@"; do
	if [ ! -f "$work/$name.rc" ]; then
		printf '%-10s %12s %8s %6s\n' "$name" "?" 1 "?"
		failed=1
		continue
	fi
	cat "$work/$name.row"
	read -r execs rc <"$work/$name.rc"
	total=$((total + execs))
	if [ "$rc" != 0 ]; then
		failed=1
		sed 's/^/#   /' "$work/$name.log" | grep -v '^#   #[0-9]' | tail -40
	fi
done
echo "total executions: $total"
[ $failed = 0 ]
