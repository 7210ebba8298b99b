// The Google Benchmark half of the mixed-noise suite (benchmarks/stats/real_mixed_noise.py):
// ten benchmarks of very different run-to-run noise, from a hash over 16 KiB
// (quiet) to sorts and copies of large arrays (noisy), 12 us to 40 ms a call.
//
// Every benchmark does its work as kUnits equal units; MCPP_SLOW="name=percent,..."
// adds percent/100 * kUnits more units to the named benchmarks (5% = 1 unit,
// 10% = 2, 30% = 6): an exact slowdown made by real extra work.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kUnits = 20;

int Units(const char *name) {
    const char *spec = std::getenv("MCPP_SLOW");
    std::string s = spec ? spec : "", key = std::string(name) + "=";
    for (size_t at = 0; at < s.size();) {
        size_t end = s.find(',', at);
        if (end == std::string::npos) end = s.size();
        std::string item = s.substr(at, end - at);
        if (item.rfind(key, 0) == 0) return kUnits + kUnits * std::atoi(item.c_str() + key.size()) / 100;
        at = end + 1;
    }
    return kUnits;
}

std::vector<double> RandomDoubles(size_t n) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u;
    std::vector<double> v(n);
    for (auto &x : v) x = u(rng);
    return v;
}

// quiet: FNV-1a over 20 x 820 bytes, ~16 KiB a call
void BM_Hash(benchmark::State &state) {
    std::vector<unsigned char> block(820);
    for (size_t i = 0; i < block.size(); i++) block[i] = (unsigned char)i;
    int n = Units("BM_Hash");
    for (auto _ : state) {
        uint64_t h = 1469598103934665603ull;
        for (int u = 0; u < n; u++)
            for (unsigned char c : block) h = (h ^ c) * 1099511628211ull;
        benchmark::DoNotOptimize(h);
    }
}

// noisy: sorts copies of a large random array (allocation and memory traffic)
void BM_SortLarge(benchmark::State &state) {
    const auto data = RandomDoubles(30000);
    int n = Units("BM_SortLarge");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            std::vector<double> copy(data);
            std::sort(copy.begin(), copy.end());
            benchmark::DoNotOptimize(copy.data());
        }
}

// noisy: copies of an 8 MiB buffer, bound by memory bandwidth that other jobs share
void BM_CopyLarge(benchmark::State &state) {
    std::vector<char> from(8 << 20, 'x'), to(8 << 20);
    int n = Units("BM_CopyLarge");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            std::memcpy(to.data(), from.data(), from.size());
            benchmark::ClobberMemory();
        }
}

void BM_StringJoin(benchmark::State &state) {
    std::vector<std::string> words;
    for (int i = 0; i < 300; i++) words.push_back("w" + std::to_string(i));
    int n = Units("BM_StringJoin");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            std::string out;
            for (const auto &w : words) out += w, out += ',';
            benchmark::DoNotOptimize(out.data());
        }
}

void BM_MapBuild(benchmark::State &state) {
    int n = Units("BM_MapBuild");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            std::unordered_map<int, int> m;
            for (int i = 0; i < 400; i++) m[i * 7919] = i;
            benchmark::DoNotOptimize(m.size());
        }
}

void BM_TreeBuild(benchmark::State &state) {
    int n = Units("BM_TreeBuild");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            std::map<int, int> m;
            for (int i = 0; i < 300; i++) m[(i * 7919) % 1009] = i;
            benchmark::DoNotOptimize(m.size());
        }
}

// allocation-heavy, sleep-free
void BM_Alloc(benchmark::State &state) {
    int n = Units("BM_Alloc");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            std::vector<std::unique_ptr<char[]>> blocks;
            for (int i = 0; i < 200; i++) blocks.emplace_back(new char[64 + i]);
            benchmark::DoNotOptimize(blocks.data());
        }
}

void BM_Accumulate(benchmark::State &state) {
    std::vector<double> v = RandomDoubles(4000);
    int n = Units("BM_Accumulate");
    for (auto _ : state)
        for (int u = 0; u < n; u++) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0));
}

void BM_SortSmall(benchmark::State &state) {
    const auto data = RandomDoubles(2000);
    int n = Units("BM_SortSmall");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            std::vector<double> copy(data);
            std::sort(copy.begin(), copy.end());
            benchmark::DoNotOptimize(copy.data());
        }
}

void BM_Sqrt(benchmark::State &state) {
    int n = Units("BM_Sqrt");
    for (auto _ : state)
        for (int u = 0; u < n; u++) {
            double s = 0;
            for (int i = 1; i < 3000; i++) s += std::sqrt((double)i);
            benchmark::DoNotOptimize(s);
        }
}

}  // namespace

BENCHMARK(BM_Hash);
BENCHMARK(BM_SortLarge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CopyLarge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StringJoin);
BENCHMARK(BM_MapBuild);
BENCHMARK(BM_TreeBuild);
BENCHMARK(BM_Alloc);
BENCHMARK(BM_Accumulate);
BENCHMARK(BM_SortSmall);
BENCHMARK(BM_Sqrt);
BENCHMARK_MAIN();
