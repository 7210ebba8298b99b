set -u; G=$(pwd)/.gpu; export LD_LIBRARY_PATH=$G/lib:${LD_LIBRARY_PATH:-}; B=$G/bin; O=${OUT:-/tmp/out}; mkdir -p $O/rc; cd $G
echo "== step"; mkdir -p $O/receipts
for lane in padded jagged block_sparse; do for i in 1 2 3; do
  timeout 60 $B/mcpp-step --backend cuda --depth 52 --family NAM56R --moe-lane $lane --seed $i --quiet \
    --out $O/receipts/nam56r_${lane}_$i.json > $O/rc/step_${lane}_$i.txt 2>&1; echo "step $lane $i rc=$?"
done; done | tee $O/step.txt
for f in $O/receipts/*.json; do $B/mcpp-receipts validate $f >/dev/null 2>&1 && echo "valid $(basename $f)" || { echo "INVALID $f"; $B/mcpp-receipts validate $f 2>&1 | head -5; }; done | tee -a $O/step.txt
$B/mcpp-receipts frontier $O/receipts 2>&1 | tee $O/frontier.txt
echo "== ncu"; NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 150 $NCU --clock-control none --target-processes all --profile-from-start off --section SpeedOfLight --launch-count 60 $B/mcpp-step --backend cuda --depth 52 --family NAM56R --moe-lane jagged --steps 3 --profile-steps 1:1 --quiet --out /tmp/prof.json > $O/ncu.txt 2>&1; echo "ncu rc=$?"
grep -E "^\s+[a-z_0-9]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput" $O/ncu.txt | head -60
cd $O; tar czf receipts.tgz receipts rc; rm -rf receipts rc
