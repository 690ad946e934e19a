# Shared by the record-*.sh scripts (sourced): each defines say() for its own prefix.

# wait_until SECONDS COMMAND...: polls COMMAND every second until it succeeds; false on timeout.
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || { say "timed out: $*"; return 1; }
        sleep 1
    done
}
