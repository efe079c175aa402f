# tests/rseq_off.sh - sourced by tests/run.sh, tests/lib.sh and the groups
# that do not use lib.sh: every test runs without glibc's rseq areas.
# The ces backend refuses to run while glibc registers them
# (core/delegation/ces.h); every backend runs under the same glibc, so all
# of them run without.  tests/preload checks the refusal with them on.
case ":${GLIBC_TUNABLES:-}:" in
*:glibc.pthread.rseq=0:*) ;;
*) export GLIBC_TUNABLES="glibc.pthread.rseq=0${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}" ;;
esac
