# Shared by the detail tests (sourced after tests/lib.sh): start
# detail-target with its files in a private directory and read the numbers
# it printed. Its parent is a `sleep` that never reaps it, so once it dies
# it stays a zombie and its exit status can be read back.
start_detail_target() {
	DT_DIR=$(mktemp -d /tmp/pscope-detail-XXXXXX)
	chmod 755 "$DT_DIR"
	at_exit "rm -rf $DT_DIR"
	sh -c '"$1" "$2" >"$2/out" 2>&1 & echo $! >"$2/pid"; exec sleep 600' sh "$TARGETS/detail-target" "$DT_DIR" &
	DT_PARENT=$!
	kill_at_exit $DT_PARENT
	wait_until grep -q ready "$DT_DIR/out"
	TPID=$(cat "$DT_DIR/pid")
	kill_at_exit $TPID
	grep -q ready "$DT_DIR/out" || { diag "detail-target did not get ready"; return 1; }
	for kv in $(sed -n 's/^ready //p' "$DT_DIR/out"); do
		eval "DT_${kv%%=*}=${kv#*=}"
	done
}
