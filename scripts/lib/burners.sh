# CPU burners for the scripts that measure under load (loaded-suite.sh,
# loaded-plans.sh): `start_burners N` starts N processes that spin for ever
# (`while :; do :; done`) and ends them when the script exits, is interrupted
# (exit 130) or is terminated (exit 143). Sourced, not run.
burner_pids=()
stop_burners() { for p in "${burner_pids[@]}"; do kill "$p" 2>/dev/null; done; }
start_burners() {
    trap 'stop_burners; exit 130' INT
    trap 'stop_burners; exit 143' TERM
    trap stop_burners EXIT
    local b
    for ((b = 0; b < $1; b++)); do
        sh -c 'while :; do :; done' &
        burner_pids+=($!)
    done
}
