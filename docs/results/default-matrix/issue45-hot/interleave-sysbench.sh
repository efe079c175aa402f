#!/bin/bash
# Interleaved rounds of sysbench threads under each library (label=LIB[@BACKEND]); prints "round label events".
# Used for results.md section 21: T=8, 11 rounds, glibc (this library, LOCKSWAP_BACKEND=glibc), the library before the change, after.
# usage: sb.sh ROUNDS label=lib[:backend] ...
R=$1; shift
for r in $(seq $R); do
  for arm in "$@"; do
    label=${arm%%=*}; spec=${arm#*=}; lib=${spec%%@*}; be=${spec#*@}; [ "$be" = "$spec" ] && be=
    n=$(env ${be:+LOCKSWAP_BACKEND=$be} LD_PRELOAD=$lib sysbench threads --threads=${T:-8} --time=1 run 2>/dev/null | awk '/total number of events/{print $5}')
    echo "$r $label $n"
  done
done
