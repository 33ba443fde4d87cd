#!/bin/sh
# doc/lab.md and doc/lab.ko.md stay true: they hold the same steps and the
# same pscope commands; every program they run from tests/targets is built;
# every pscope subcommand and option they name exists (--help says so); and
# every batch pscope command of the lab runs, as written, against the lab's
# own targets (with /tmp/ moved to a scratch directory and the sampling
# durations cut to one second).
. "$top_srcdir/tests/lib.sh"
en=$top_srcdir/doc/lab.md
ko=$top_srcdir/doc/lab.ko.md

tmp=$(mktemp -d /tmp/pscope-lab.XXXXXX)
at_exit "rm -rf $tmp"
check "doc/lab.ko.md exists" test -s "$ko"
ok "$([ "$(grep -c '^## ' "$en")" = "$(grep -c '^## ' "$ko")" ]; echo $?)" "both labs have the same sections ($(grep -c '^## ' "$en"))"
check "the Korean lab is Korean" grep -q '표본' "$ko"

# The pscope command lines of the code blocks (indented four spaces), with
# comments and a leading LANG= dropped: the two labs must agree.
cmds() {
	grep -E '^    ' "$1" | grep -E '(^|[ (/;])pscope( |$)' | sed -e 's/^ *//' -e 's/  *# .*//' -e 's/^LANG=[^ ]* //' |
		grep -v '^pscope doors --report /tmp/lab-doors\.[a-z]*\.md$' | sort -u
}
cmds "$en" >"$tmp/en"
cmds "$ko" >"$tmp/ko"
d=$(diff "$tmp/en" "$tmp/ko")
ok "$([ -z "$d" ]; echo $?)" "doc/lab.md and doc/lab.ko.md run the same pscope commands"
[ -z "$d" ] || diag "$d"

for lab in "$en" "$ko"; do
	name=doc/$(basename "$lab")
	for t in $(grep -oE '\$T/[a-z0-9.-]+' "$lab" | sed 's|\$T/||' | sort -u); do
		case $t in
		*.py) check "$name: lab program $t exists" test -f "$top_srcdir/tests/targets/$t" ;;
		*) check "$name: lab program $t is built" test -x "$TARGETS/$t" ;;
		esac
	done
	# Each subcommand and each option named after it.
	cmds "$lab" >"$tmp/cmds"
	set -f
	while IFS= read -r line; do
		rest=${line#*pscope}
		set -- $rest
		sub=${1:-}
		case $sub in
		list|show|stack|top|core|cores|doors) help=$($PSCOPE "$sub" --help 2>&1); shift ;;
		*) help=$($PSCOPE --help 2>&1); sub="" ;;
		esac
		inner=0
		for w in "$@"; do
			case $inner$w in
			0\$\(*\)) continue ;;
			0\$\(*) inner=1; continue ;;
			1*\)) inner=0; continue ;;
			1*) continue ;;
			esac
			case $w in
			\|*|\)*|\;*) break ;;
			--*) o=${w%%=*} ;;
			-[a-zA-Z]) o=$w ;;
			*) continue ;;
			esac
			echo "$help" | grep -qE -- "(^|[[ ,])$o([] =,|]|$)"
			ok $? "$name: 'pscope $sub' knows $o"
		done
	done <"$tmp/cmds"
	set +f
done

# Run the batch commands of the English lab, in order, on the lab's targets.
mkdir "$tmp/bin" && ln -s "$PSCOPE" "$tmp/bin/pscope"
start_target hotloop -t 2 || exit 1
HOT=$TPID
start_target lab-deadlock || exit 1
DL=$TPID
python3 "$top_srcdir/tests/targets/py-threads.py" >"$tmp/py.out" 2>&1 &
PY=$!
at_exit "kill $PY 2>/dev/null"
wait_until grep -q ready "$tmp/py.out"
check "py-threads.py is ready" grep -q ready "$tmp/py.out"

grep -E '^    ' "$en" | grep -E '(^|[ (/;])pscope ' | sed -e 's/^ *//' -e 's/  *# .*//' | awk '!seen[$0]++' >"$tmp/run"
while IFS= read -r line; do
	case $line in
	pscope|pscope\ -*|*AS_USER*|*cp\ pscope*) continue ;; # interactive, or as another user (doors-unpriv.sh)
	esac
	run=$(printf '%s\n' "$line" | sed -e "s|/tmp/|$tmp/|g" -e 's/--duration [0-9]*/--duration 1/' \
		-e "s|\\\$(pgrep -n hotloop)|$HOT|" -e "s| CORE| $tmp/lab-dl.core|")
	out=$(cd "$tmp" && PATH="$tmp/bin:$PATH" T=$TARGETS PY=$PY HOT=$HOT DL=$DL sh -c "$run" 2>&1)
	rc=$?
	ok $rc "lab runs: $line"
	[ $rc = 0 ] || diag "$(echo "$out" | tail -5)"
done <"$tmp/run"
# Step 3 ranks the folded lines by their count (the last field): frames
# hold spaces ("price_rules (slowapi.py:13)"), so the count is not field 2.
for lab in "$en" "$ko"; do
	rank=$(grep -E '^    .*lab-py\.folded \| ' "$lab" | sed -e 's/^ *//' -e "s|/tmp/lab-py.folded|$tmp/rank.folded|")
	printf '%s\n' "main (a.py:1);handle (a.py:5) 7" "main (a.py:1);price_rules (slowapi.py:13) 120" \
		"main (a.py:1);idle 9" "main (a.py:1);log (a.py:9) 30" >"$tmp/rank.folded"
	ok "$([ "$(sh -c "$rank" 2>&1 | awk '{ print $NF }' | tr '\n' ' ')" = "120 30 9 " ]; echo $?)" \
		"$(basename "$lab") step 3: the three largest counts first, frames with spaces or not"
done
# Step 8's machine-wide view by command name finds the lab's busy program
# (sampling until 300 samples, so a loaded machine only makes it slower).
(cd "$tmp" && "$PSCOPE" top --duration 60 --samples 300 --by comm) >"$tmp/by-comm" 2>&1
check "step 8: hotloop has its row in pscope top --by comm" grep -Eq '^ +[0-9.]+ +[0-9]+ +[0-9]+  hotloop$' "$tmp/by-comm"
check "the report of step 9 was written" grep -q '^# pscope doors report' "$tmp/lab-doors.md"
if grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" && locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	check "the report of step 9 in Korean" grep -q '^# pscope 문 보고서' "$tmp/lab-doors.ko.md"
else
	skip "the report of step 9 in Korean: no NLS or no ko_KR.UTF-8 locale"
fi
check "the lab's targets run on" runs_on_soon $DL
done_testing
