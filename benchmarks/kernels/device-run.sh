#!/usr/bin/env bash
# device-run.sh: one full device session for issue 17, run from a carried .gpu/ folder
# (binaries built on the dev box + their shared libs). Logs go to $OUT.
set -u
G=$(pwd)/.gpu; export LD_LIBRARY_PATH=$G/lib:${LD_LIBRARY_PATH:-}; B=$G/bin
O=${OUT:-/tmp/out}; mkdir -p $O/rc
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee $O/probe.txt
for b in $B/*; do ldd $b | grep "not found" && echo "MISSING for $b"; done | tee -a $O/probe.txt
cd $G
echo "== test"; ( $B/kernels_cuda_match_reference_or_skip; echo "rc=$?" ) 2>&1 | tee $O/test.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "== sanitizer $CS"
( timeout 150 $CS --tool memcheck --error-exitcode 9 $B/kernels_cuda_match_reference_or_skip; echo "memcheck rc=$?";
  timeout 150 $CS --tool racecheck --error-exitcode 9 $B/kernels_cuda_match_reference_or_skip; echo "racecheck rc=$?" ) > $O/sanitizer.txt 2>&1
tail -5 $O/sanitizer.txt; grep "rc=" $O/sanitizer.txt
echo "== bench"; timeout 120 $B/mcpp-bench-kernels-gpu 2>&1 | tee $O/bench.txt
echo "== torch"; timeout 90 python3 $G/torch_compare.py 2>&1 | tee -a $O/bench.txt
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
