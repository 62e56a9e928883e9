# usage.sh -- --help for the perf/bin scripts whose only argument is an output directory: sourced first, it prints
# the script's header comment (its usage and environment) for -h/--help, and refuses any other option, which would
# otherwise be taken for a directory name.
usage_of() {
    sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$1"
}
case "${1:-}" in
    -h|--help) usage_of "$0"; exit 0 ;;
    -*) echo "$(basename "$0"): unknown option $1" >&2; usage_of "$0" >&2; exit 2 ;;
esac
