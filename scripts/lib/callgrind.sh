# scripts/lib/callgrind.sh - reading what callgrind counted. Sourced by the benchmarks that run
# a server under valgrind --tool=callgrind.
#
#   callgrind_total DUMP   # the instructions the dump counted, every thread, as one number

callgrind_total() {
  grep -m1 '^summary:\|^totals:' "$1" | awk '{ print $2 }'
}
