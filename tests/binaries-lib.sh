# Helpers of the tests of binaries as users build them (sourced after
# tests/lib.sh): pscope's frames against eu-stack's on the same process or
# core, thread by thread.

# eu_functions OUT eu-stack-ARGS...: "TID function" lines of eu-stack
eu_functions() {
	local out=$1
	shift
	eu-stack "$@" 2>/dev/null | awk '/^TID/{t=$2; sub(":","",t)} /^#/{print t, $3}' | sort >"$out"
}
# ps_functions OUT pscope-stack-ARGS...: the same of pscope stack --no-group
# (a frame without a symbol: "module+0x..." here, no name in eu-stack)
ps_functions() {
	local out=$1
	shift
	"$PSCOPE" stack --no-group "$@" 2>/dev/null |
		awk '/^TID/{t=$2} /^#/{n=$3; m=$4; gsub(/[()]/, "", m); sub(/\+0x[0-9a-f]*$/, "", n); if (n == "??" || n == m) n = ""; print t, n}' |
		sort >"$out"
}
# same_as_eu LABEL DIR PSCOPE-ARGS -- EU-STACK-ARGS: one check
same_as_eu() {
	local label=$1 dir=$2 ps_args="" a
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do ps_args="$ps_args $1"; shift; done
	shift
	if ! command -v eu-stack >/dev/null; then
		skip "eu-stack not installed: $label"
		return
	fi
	eu_functions "$dir/eu" "$@"
	# shellcheck disable=SC2086
	ps_functions "$dir/ps" $ps_args
	[ -s "$dir/eu" ] || diag "eu-stack printed nothing"
	check "$label: the same functions per thread as eu-stack" cmp "$dir/eu" "$dir/ps"
	cmp -s "$dir/eu" "$dir/ps" || diff "$dir/eu" "$dir/ps" | head -12 | sed 's/^/#   /'
}

# prog_core DIR CORE: stack-threads run from a copy DIR/prog, its core
# written to CORE by pscope core (one check), the program then ended.
prog_core() {
	local dir=$1 core=$2 pid
	cp "$TARGETS/stack-threads" "$dir/prog"
	"$dir/prog" >"$dir/prog.out" 2>&1 &
	pid=$!
	at_exit "kill -9 $pid 2>/dev/null"
	poll 100 grep -q ready "$dir/prog.out" || diag "the target did not get ready"
	"$PSCOPE" core "$pid" -o "$core" >/dev/null 2>&1
	ok $? "pscope core writes the core"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
}
