#!/bin/bash
# Interleaved rounds of bench/apps/everyday.sh PROG 8 under each library (label=LIB[@BACKEND]); prints "round label seconds".
# ev.sh PROG ROUNDS label=lib[@backend] ...
P=$1; R=$2; shift 2
cd /work/main
for r in $(seq $R); do
  for arm in "$@"; do
    label=${arm%%=*}; spec=${arm#*=}; lib=${spec%%@*}; be=${spec#*@}; [ "$be" = "$spec" ] && be=
    s=$(env ${be:+LOCKSWAP_BACKEND=$be} LD_PRELOAD=$lib bash bench/apps/everyday.sh $P 8 2>&1 | sed -n 's/.*seconds: \([0-9.]*\).*/\1/p')
    echo "$r $label $s"
  done
done
