set -u; G=$(pwd)/.gpu; export LD_LIBRARY_PATH=$G/lib; B=$G/bin; cd $G
for d in 1 4 12 24 52; do for p in A E M R AEMEAEMEAEMR; do
 $B/mcpp-step --backend cuda --depth $d --pattern $p --steps 1 --warmup 0 --quiet --out /tmp/r.json >/dev/null 2>&1
 echo "depth $d pattern $p: $(python3 -c "import json;print(json.load(open('/tmp/r.json'))['backend']['verification'])" 2>&1)"
done; done
