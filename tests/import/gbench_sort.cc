// gbench_sort.cc — a tiny Google Benchmark program the import tests build and
// run, so the importer reads output the real library wrote. Built with
// -DMCPP_SLOW_SORT it does the same work several times over, with
// -DMCPP_SLOW_PERCENT=30 it also sorts 30% more elements per iteration: the
// deliberately slowed variants a gate must catch. BM_Accumulate/real_time
// measures wall-clock time (UseRealTime), so its primary metric is real time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#ifndef MCPP_SLOW_SORT
#define MCPP_SLOW_SORT 1
#endif
#ifndef MCPP_SLOW_PERCENT
#define MCPP_SLOW_PERCENT 0
#endif

static void BM_Sort(benchmark::State &state)
{
    std::vector<int> v(static_cast<size_t>(state.range(0) * (100 + MCPP_SLOW_PERCENT) / 100));
    for (auto _ : state) {
        for (int pass = 0; pass < MCPP_SLOW_SORT; pass++) {
            for (size_t i = 0; i < v.size(); i++)
                v[i] = static_cast<int>((i * 2654435761u) % 1000003u);
            std::sort(v.begin(), v.end());
            benchmark::DoNotOptimize(v.data());
        }
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.counters["elements"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_Sort)->Arg(256)->Arg(4096);

static void BM_Accumulate(benchmark::State &state)
{
    std::vector<double> v(1024, 1.5);
    for (auto _ : state) {
        double s = 0;
        for (double x : v)
            s += x;
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_Accumulate);
BENCHMARK(BM_Accumulate)->UseRealTime();

BENCHMARK_MAIN();
