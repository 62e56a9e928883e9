# ports.sh -- free_port for the perf/bin scripts that start servers on ports of their own choosing. Sourced, never run.

# free_port: prints a loopback TCP port no socket uses, below the kernel's ephemeral range. Above its start, a
# client's outgoing connection (redis-benchmark's, the loader's) may take the port between this check and the
# server's bind, which then fails with "address already in use" (it did, once, in resp-vs-redis).
free_port() {
    local low p
    low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "$low" -gt 12000 ] || low=32768
    while :; do
        p=$(( 10000 + RANDOM % (low - 10000) ))
        ss -tan "( sport = :$p )" 2>/dev/null | grep -q ":$p " || { echo "$p"; return; }
    done
}
