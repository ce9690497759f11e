#!/bin/bash
for r in $(seq 11); do
for cfg in "120 stack=292" "2 -"; do
  set -- $cfg; n=$1; p=$2
  line="create-detached $n $p"
  for v in stock fixes patched; do
    if [ "$p" = "-" ]; then args=""; else args="-p $p"; fi
    rate=$(/tmp/exp/$v-create-detached -t $n $args -w 0.5 -d 1 -i 0.1 2>/dev/null | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["rate"]))')
    line="$line | $v $rate"
  done
  echo "$line"
done
done
